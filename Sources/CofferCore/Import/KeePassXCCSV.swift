import Foundation

/// The CSV `keepassxc-cli export --format csv` writes: "Group","Title","Username","Password",
/// "URL","Notes","TOTP","Icon","Last Modified","Created".
///
/// The group path's first part is the database's root group (every entry is under it), so the tags
/// are the groups below it. The icon is KeePassXC's display choice: kept in the notes only when it
/// is not the default (0).
public enum KeePassXCCSV {
    static let required = ["Group", "Title", "Username", "Password", "URL", "Notes"]
    static let known = required + ["TOTP", "Icon", "Last Modified", "Created"]

    public static func drafts(_ data: Data, file: String) throws(CoreError) -> [ImportDraft] {
        let table = try CSVTable(data, file: file)
        let columns = try table.columns(required: required, format: "KeePassXC")
        let others = table.otherColumns(known: known)
        return table.rows.map { row in
            var draft = ImportDraft(place: "line \(row.line)")
            draft.addTags(path: row.value("Group", columns).split(separator: "/").dropFirst().joined(separator: "/"))
            draft.title = row.value("Title", columns)
            draft.username = row.value("Username", columns)
            draft.password = row.value("Password", columns)
            draft.addOrigin(row.value("URL", columns))
            draft.notes = row.value("Notes", columns)
            draft.totp = row.value("TOTP", columns)
            let icon = row.value("Icon", columns)
            if icon != "0" { draft.note("Icon", icon) }
            for (label, column) in [("Created", "Created"), ("Last modified", "Last Modified")] {
                let text = row.value(column, columns)
                let time = ImportDraft.time(iso8601: text)
                if time == nil { draft.note(label, text) }
                if column == "Created" { draft.created = time } else { draft.modified = time }
            }
            for (name, index) in others { draft.note(name, row.values[index]) }
            return draft
        }
    }
}
