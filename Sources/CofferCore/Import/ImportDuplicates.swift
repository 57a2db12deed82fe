/// Which imported items are already there: the same title, username and password as an item in
/// the vault, or as an earlier record of the same file. Those are skipped, so importing the same
/// export twice adds nothing.
public struct ImportDuplicates: Sendable {
    public enum Reason: String, Sendable { case inVault = "already in the vault", inFile = "twice in the file" }

    public var kept: [Item] = []
    public var skipped: [(item: Item, reason: Reason)] = []

    public init(_ items: [Item], existing: [Item]) {
        let inVault = Set(existing.map(Self.key))
        var seen = Set<String>()
        for item in items {
            let key = Self.key(item)
            if inVault.contains(key) {
                skipped.append((item, .inVault))
            } else if !seen.insert(key).inserted {
                skipped.append((item, .inFile))
            } else {
                kept.append(item)
            }
        }
    }

    static func key(_ item: Item) -> String {
        [item.title, item.entry.username, item.entry.password].joined(separator: "\u{0}")
    }
}
