/// `export --format csv`: one row per item under the header
/// title, username, password, url, origins, tags, notes, totp, created, modified, kind, fields.
///
/// `url` is the first origin (what browsers and other managers import), `origins` all of them
/// separated by spaces, `tags` separated by ", "; times in ISO 8601 UTC. `fields` holds what has
/// no column of its own — a card's or identity's fields, then custom fields — one `Label: value`
/// line each, so nothing of an item is left out. Every field is quoted and inner quotes doubled
/// (RFC 4180), so commas and newlines survive.
public enum ItemCSV {
    public static let header = ["title", "username", "password", "url", "origins", "tags", "notes", "totp", "created", "modified",
                                "kind", "fields"]

    public static func text(_ items: [Item]) -> String {
        var text = line(header)
        for item in items {
            text += line([
                item.title, item.entry.username, item.entry.password, item.origins.first ?? "",
                item.origins.joined(separator: " "), item.tags.joined(separator: ", "), item.entry.notes,
                item.entry.totp ?? "", item.created.iso8601, item.modified.iso8601, item.entry.kind, fields(of: item.entry),
            ])
        }
        return text
    }

    /// The kind's fields without a column (by label, in the kind's order; an unknown kind's by
    /// name), then the custom fields, as `Label: value` lines.
    static func fields(of entry: Entry) -> String {
        var lines: [String] = []
        let kind = ItemKind.named(entry.kind)
        for field in kind?.fields ?? [] where !ItemKind.login.fields.contains(field) {
            if let value = entry.fields[field.name], !value.isEmpty { lines.append("\(field.label): \(value)") }
        }
        let described = Set((kind?.fields ?? []).map(\.name))
        for (name, value) in entry.fields.sorted(by: { $0.key < $1.key }) where !described.contains(name) {
            lines.append("\(name): \(value)")
        }
        for field in entry.custom { lines.append("\(field.label): \(field.value)") }
        return lines.joined(separator: "\n")
    }

    static func line(_ fields: [String]) -> String {
        fields.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",") + "\r\n"
    }
}
