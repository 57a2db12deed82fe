extension Vault {
    /// The item `name` means (architecture §12): `noItemNamed` for none, `ambiguousName` for
    /// several. An exact id is read directly, without opening every item.
    public func item(named name: String) throws -> Item {
        if RecordID.isValid(name) {
            do {
                return try item(name)
            } catch CoreError.noSuchItem {
                // Not an id: try the other rules.
            }
        }
        return try item(ItemNameResolver.id(of: name, among: try listItems().map(ItemNameResolver.Candidate.init)))
    }
}
