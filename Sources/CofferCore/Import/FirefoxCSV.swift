import Foundation

/// Firefox's "Export Logins" CSV: url, username, password, httpRealm, formActionOrigin, guid,
/// timeCreated, timeLastUsed, timePasswordChanged (times in milliseconds since the epoch).
///
/// Firefox has no titles: the title is the site's host. The password change time is the item's
/// modified time; the realm, the form's origin and any other column go to the notes. The guid is
/// Firefox's own id and means nothing here, so it is not kept.
public enum FirefoxCSV {
    /// Firefox always writes all nine; asking for all of them keeps a Chrome file (which also has
    /// url, username and password) from being read as Firefox's.
    static let required = ["url", "username", "password", "httpRealm", "formActionOrigin", "guid", "timeCreated",
                           "timeLastUsed", "timePasswordChanged"]
    static let known = required

    public static func drafts(_ data: Data, file: String) throws(CoreError) -> [ImportDraft] {
        let table = try CSVTable(data, file: file)
        let columns = try table.columns(required: required, format: "Firefox")
        let others = table.otherColumns(known: known)
        return table.rows.map { row in
            var draft = ImportDraft(place: "line \(row.line)")
            draft.addOrigin(row.value("url", columns))
            draft.username = row.value("username", columns)
            draft.password = row.value("password", columns)
            draft.note("HTTP realm", row.value("httpRealm", columns))
            let formOrigin = row.value("formActionOrigin", columns)
            if formOrigin != row.value("url", columns) { draft.note("Form action origin", formOrigin) }
            draft.created = time(row.value("timeCreated", columns), "Created", &draft)
            draft.lastUsed = time(row.value("timeLastUsed", columns), "Last used", &draft)
            draft.modified = time(row.value("timePasswordChanged", columns), "Password changed", &draft)
            for (name, index) in others { draft.note(name, row.values[index]) }
            return draft
        }
    }

    /// A time column; an unreadable one is kept in the notes.
    private static func time(_ text: String, _ label: String, _ draft: inout ImportDraft) -> Timestamp? {
        if let time = ImportDraft.time(milliseconds: text) { return time }
        draft.note(label, text)
        return nil
    }
}
