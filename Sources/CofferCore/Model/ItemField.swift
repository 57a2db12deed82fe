/// The fields of an item a user sees, edits, merges and reviews, by one name each: the merge's
/// review rows, history patches, secret-ness and display all agree on these.
public enum ItemField: String, CaseIterable, Sendable, Codable {
    case title, disabled, username, password, notes, totp, kind, origins, tags

    /// Shown only on request: masked in reviews, history and `show` without `--reveal`.
    public var isSecret: Bool { self == .password || self == .totp }

    /// A set of values, merged three ways (additions and removals from both sides).
    public var isList: Bool { self == .origins || self == .tags }

    /// Whether a field of that name (a history patch's key, say) is secret.
    public static func isSecret(_ name: String) -> Bool { ItemField(rawValue: name)?.isSecret ?? false }
}
