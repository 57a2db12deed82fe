import Foundation

/// One decrypted password-store (`pass`) file, as its conventions lay it out: the first line is
/// the password; `username:`, `user:`, `login:`, `email:` and `url:` lines fill those fields; an
/// `otpauth://` line (pass-otp) is the TOTP; every other line stays in the notes, in order.
/// The path without `.gpg` is the title and its directories are the tags.
public enum PassEntry {
    static let usernameKeys: Set<String> = ["username", "user", "login", "email"]

    /// - Parameter path: relative to the store, with `/` between directories ("web/github.com.gpg").
    public static func draft(path: String, text: String, modified: Timestamp?) -> ImportDraft {
        var draft = ImportDraft(place: path)
        let name = path.hasSuffix(".gpg") ? String(path.dropLast(4)) : path
        draft.title = name
        draft.addTags(path: name.split(separator: "/").dropLast().joined(separator: "/"))
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        if lines.last == "" { lines.removeLast() }
        draft.password = lines.first ?? ""
        var notes: [String] = []
        for line in lines.dropFirst() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.lowercased().hasPrefix("otpauth://") && draft.totp.isEmpty {
                draft.totp = trimmed
                continue
            }
            if let colon = line.firstIndex(of: ":") {
                let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if usernameKeys.contains(key) && draft.username.isEmpty {
                    draft.username = value
                    continue
                }
                if key == "url" && !value.isEmpty {
                    draft.addOrigin(value)
                    continue
                }
            }
            notes.append(line)
        }
        while notes.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { notes.removeFirst() }
        draft.notes = notes.joined(separator: "\n")
        draft.created = modified
        draft.modified = modified
        return draft
    }
}
