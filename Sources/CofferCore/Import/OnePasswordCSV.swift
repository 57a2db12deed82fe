import Foundation

/// 1Password 8's CSV export: Title, Url, Username, Password, OTPAuth, Favorite, Archived, Tags, Notes.
///
/// Column names are matched without regard to case, so older exports with "URL" or "Notes" fit
/// too. Tags are separated by commas or semicolons; an archived item is imported disabled; a
/// favourite is noted in the notes (Coffer has no favourites). Other columns go to the notes.
public enum OnePasswordCSV {
    static let required = ["Title", "Url", "Username", "Password"]
    static let known = required + ["OTPAuth", "Favorite", "Archived", "Tags", "Notes"]

    public static func drafts(_ data: Data, file: String) throws(CoreError) -> [ImportDraft] {
        let table = try CSVTable(data, file: file)
        let columns = try table.columns(required: required, format: "1Password")
        let others = table.otherColumns(known: known)
        return table.rows.map { row in
            var draft = ImportDraft(place: "line \(row.line)")
            draft.title = row.value("Title", columns)
            draft.addOrigin(row.value("Url", columns))
            draft.username = row.value("Username", columns)
            draft.password = row.value("Password", columns)
            draft.totp = row.value("OTPAuth", columns)
            draft.notes = row.value("Notes", columns)
            for tag in row.value("Tags", columns).split(whereSeparator: { $0 == "," || $0 == ";" }) {
                draft.addTags(path: String(tag))
            }
            if isTrue(row.value("Favorite", columns)) { draft.extraNotes.append("Favorite: yes") }
            draft.disabled = isTrue(row.value("Archived", columns))
            for (name, index) in others { draft.note(name, row.values[index]) }
            return draft
        }
    }

    static func isTrue(_ text: String) -> Bool {
        ["true", "yes", "1"].contains(text.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
