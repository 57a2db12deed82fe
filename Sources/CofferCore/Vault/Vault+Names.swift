extension Vault {
    /// The item `name` means (architecture §12): `noItemNamed` for none, `ambiguousName` for
    /// several. An exact id is read directly, without opening every item. An item in the trash
    /// (issue 43) has no name: only `coffer trash` and `restore` see it.
    public func item(named name: String) throws -> Item {
        if RecordID.isValid(name) {
            do {
                let found = try item(name)
                if !found.isTrashed { return found }
            } catch CoreError.noSuchItem {
                // Not an id: try the other rules.
            }
        }
        let named = try listItems().filter { $0.item?.isTrashed != true }.map(ItemNameResolver.Candidate.init)
        return try item(ItemNameResolver.id(of: name, among: named))
    }
}
