import ArgumentParser
import CofferAgent
import CofferCore

/// The NAME argument of every command that takes an item: an id, an id prefix or (part of) a title.
struct ItemNameArgument: ParsableArguments {
    // Titles are encrypted: the shell completes them only while an agent holds the vault unlocked
    // (a completion must never ask for the passphrase).
    @Argument(help: ArgumentHelp("The item: its id, an id prefix, its title or a unique part of it.", valueName: "name"),
              completion: .custom { words, _, prefix in ItemNameCompletion.titles(words: words, prefix: prefix) })
    var name: String

    /// The item the name means: `noItemNamed` for none, `ambiguousName` for several.
    func item(in vault: any ItemVault) async throws -> Item {
        try await vault.item(named: name)
    }
}

/// Titles for the shell's completion of NAME, from the unlocked agent of the vault the command
/// line names (`--vault`, else the default); none without an agent, none that holds a control.
enum ItemNameCompletion {
    static func titles(words: [String], prefix: String) -> [String] {
        let vault = words.firstIndex(of: "--vault").flatMap { words.indices.contains($0 + 1) ? words[$0 + 1] : nil }
        guard let agent = try? AgentVault.connect(vaultPath: vault ?? GlobalOptions.defaultVaultPath),
              let listed = try? agent.items(.everything) else { return [] }
        let wanted = prefix.lowercased()
        // The shell prints candidates to the terminal as they are: a title holding a control is
        // left out (its escaped form would not name the item anyway).
        return listed.compactMap { $0.item?.title }
            .filter { TerminalText.isSafe($0) && $0.lowercased().hasPrefix(wanted) }.sorted()
    }
}
