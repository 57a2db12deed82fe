/// `export --format csv`: one row per item under the header
/// title, username, password, url, origins, tags, notes, totp, created, modified.
///
/// `url` is the first origin (what browsers and other managers import), `origins` all of them
/// separated by spaces, `tags` separated by ", "; times in ISO 8601 UTC. Every field is quoted and
/// inner quotes doubled (RFC 4180), so commas and newlines in notes survive.
public enum ItemCSV {
    public static let header = ["title", "username", "password", "url", "origins", "tags", "notes", "totp", "created", "modified"]

    public static func text(_ items: [Item]) -> String {
        var text = line(header)
        for item in items {
            text += line([
                item.title, item.entry.username, item.entry.password, item.origins.first ?? "",
                item.origins.joined(separator: " "), item.tags.joined(separator: ", "), item.entry.notes,
                item.entry.totp ?? "", item.created.iso8601, item.modified.iso8601,
            ])
        }
        return text
    }

    static func line(_ fields: [String]) -> String {
        fields.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",") + "\r\n"
    }
}
