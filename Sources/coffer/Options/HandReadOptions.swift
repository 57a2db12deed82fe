/// A command line read without ArgumentParser, for the starts people and timers wait on (the
/// screen, `coffer sync`): ArgumentParser's first parse takes ~5 ms of CPU, most of it the
/// runtime's first protocol conformance lookups over the statically linked binary.
///
/// Takes `command` once (when given), `--name value` or `--name=value` for each of `options`
/// (before or after the command, as the vault options may be), a bare `--name` for each of
/// `flags` (after it), each at most once, and, when `takesArgument`, exactly one word after the
/// command (a search's query, an item's name). Nil for anything else — another word, `--help`,
/// `--`, a repeat, an empty value or one that starts with `-` — which the full parse then takes,
/// with its error messages.
struct HandReadOptions {
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []
    /// The one word after the command, when `takesArgument`.
    private(set) var argument: String?

    init?(_ arguments: ArraySlice<String>, command: String? = nil, options: Set<String>, flags allowedFlags: Set<String> = [],
          takesArgument: Bool = false) {
        var rest = arguments
        var sawCommand = command == nil
        while let argument = rest.popFirst() {
            if !sawCommand, argument == command {
                sawCommand = true
                continue
            }
            if sawCommand, allowedFlags.contains(argument) {
                guard flags.insert(argument).inserted else { return nil }
                continue
            }
            if sawCommand, takesArgument, !argument.hasPrefix("-") {
                guard self.argument == nil, !argument.isEmpty else { return nil }
                self.argument = argument
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard options.contains(name), values[name] == nil,
                  let value = parts.count == 2 ? String(parts[1]) : rest.popFirst(),
                  !value.isEmpty, !value.hasPrefix("-") else { return nil }
            values[name] = value
        }
        guard sawCommand, !takesArgument || self.argument != nil else { return nil }
    }
}
