import CofferCore

/// `coffer search QUERY [--json]` and `coffer show NAME --field F`, each with `--vault` and
/// `--passphrase-file` (before or after the command), read by hand (`HandReadOptions`): the
/// lookups scripts run again and again, most often through an agent, where ArgumentParser's first
/// parse (~5 ms of CPU, the runtime's first protocol conformance lookups) was a third of the whole
/// process. Anything else — another option, `--help`, a query that starts with `-` — goes on to
/// the full parse, which explains errors; both paths run the same code (`SearchCommand.search`,
/// `ShowCommand.showField`).
enum ItemCommandByHand {
    case search(String, json: Bool, global: GlobalOptions)
    case showField(FieldSelector, of: String, global: GlobalOptions)

    private static let globalOptions: Set<String> = ["--vault", "--passphrase-file"]

    init?(arguments: [String]) {
        let words = arguments[...]
        if let read = HandReadOptions(words, command: "search", options: Self.globalOptions, flags: ["--json"], takesArgument: true),
           let query = read.argument {
            self = .search(query, json: read.flags.contains("--json"), global: Self.global(read))
        } else if let read = HandReadOptions(words, command: "show", options: Self.globalOptions.union(["--field"]), takesArgument: true),
                  let name = read.argument, let selector = read.values["--field"].flatMap(FieldSelector.init(name:)) {
            self = .showField(selector, of: name, global: Self.global(read))
        } else {
            return nil
        }
    }

    func run() async throws {
        switch self {
        case .search(let query, let json, let global):
            try await SearchCommand.search(query, json: json, global: global)
        case .showField(let selector, let name, let global):
            try await ShowCommand.showField(selector, of: name, global: global)
        }
    }

    private static func global(_ read: HandReadOptions) -> GlobalOptions {
        GlobalOptions.given(vault: read.values["--vault"], passphraseFile: read.values["--passphrase-file"])
    }
}
