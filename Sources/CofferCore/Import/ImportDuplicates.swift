/// Which imported items are already there: the same kind, title, username, password and kind
/// fields (a card's number, …; a secure note's notes; a login without a password's TOTP) as an item in the vault, or as an earlier
/// record of the same file. Those are skipped, so importing the same export twice adds nothing,
/// while two cards both called "Visa" are two items.
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
        let entry = item.entry
        var parts = [entry.kind, item.title, entry.username, entry.password]
        for (name, value) in entry.fields.sorted(by: { $0.key < $1.key }) { parts += [name, value] }
        if entry.kind == ItemKind.note.name { parts.append(entry.notes) }
        // A login without a password (an authenticator's account) is told apart by its TOTP secret:
        // two accounts with one issuer and name are two items.
        if entry.kind == Entry.loginKind && entry.password.isEmpty { parts.append(entry.totp ?? "") }
        return parts.joined(separator: "\u{0}")
    }
}
