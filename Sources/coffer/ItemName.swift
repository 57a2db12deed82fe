import ArgumentParser
import CofferCore

/// The NAME argument of every command that takes an item: an id, an id prefix or (part of) a title.
struct ItemNameArgument: ParsableArguments {
    // No shell completion of titles: they are encrypted, and a completion must not ask for the passphrase.
    @Argument(help: ArgumentHelp("The item: its id, an id prefix, its title or a unique part of it.", valueName: "name"))
    var name: String

    /// The item the name means: `noItemNamed` for none, `ambiguousName` for several.
    func item(in vault: any ItemVault) async throws -> Item {
        try await vault.item(named: name)
    }
}

extension Vault {
    /// Resolves `name` (DESIGN §12). An exact id is read directly, without opening every item.
    func item(named name: String) throws -> Item {
        if RecordID.isValid(name) {
            do {
                return try item(name)
            } catch CoreError.noSuchItem {
                // Not an id: try the other rules.
            }
        }
        let candidates = try listItems().map { listed in
            ItemNameResolver.Candidate(id: listed.id, title: listed.item?.title, username: listed.item?.entry.username)
        }
        switch ItemNameResolver.resolve(name, among: candidates) {
        case .found(let id): return try item(id)
        case .none: throw CoreError.noItemNamed(name)
        case .ambiguous(let matches): throw CoreError.ambiguousName(name, candidates: matches)
        }
    }
}
