import Foundation

/// Chrome's (and Edge's, Brave's) "Export passwords" CSV: name, url, username, password, note.
/// Chrome keeps no times or folders in it; any other column goes to the notes.
public enum ChromeCSV {
    static let required = ["name", "url", "username", "password"]
    static let known = required + ["note"]

    public static func drafts(_ data: Data, file: String) throws(CoreError) -> [ImportDraft] {
        let table = try CSVTable(data, file: file)
        let columns = try table.columns(required: required, format: "Chrome")
        let others = table.otherColumns(known: known)
        return table.rows.map { row in
            var draft = ImportDraft(place: "line \(row.line)")
            draft.title = row.value("name", columns)
            draft.addOrigin(row.value("url", columns))
            draft.username = row.value("username", columns)
            draft.password = row.value("password", columns)
            draft.notes = row.value("note", columns)
            for (name, index) in others { draft.note(name, row.values[index]) }
            return draft
        }
    }
}
