/// One row of the key table: keys, what they do, where, and when they do nothing.
struct KeyBinding: Sendable {
    var keys: [Key]
    var action: Action
    /// What the help screen says.
    var description: String
    /// The short form in the hint line; nil keeps the binding out of it.
    var hint: String?
    var contexts: Set<KeyContext>
    /// Where the hint shows; nil: everywhere the binding works. The item page's line has no room
    /// for every key, and its own (the files' w, a, x) were cut for list keys such as `n new`.
    var hintContexts: Set<KeyContext>?
    /// Why the binding does nothing in this state (shown when pressed, and in help); nil when enabled.
    var disabledReason: @Sendable (ScreenState) -> String?
    /// Whether `config.toml`'s `[keys]` may give the action other keys here (`KeyMap`); the kind
    /// question's letters are the kinds' own.
    var isRemappable: Bool

    init(keys: [Key], action: Action, description: String, hint: String? = nil, contexts: Set<KeyContext>,
                hintContexts: Set<KeyContext>? = nil,
                isRemappable: Bool = true,
                disabledReason: @escaping @Sendable (ScreenState) -> String? = { _ in nil }) {
        self.keys = keys
        self.action = action
        self.description = description
        self.hint = hint
        self.contexts = contexts
        self.hintContexts = hintContexts
        self.disabledReason = disabledReason
        self.isRemappable = isRemappable
    }

    /// The keys as the help screen lists them ("↓ j").
    var keyNames: String { keys.map(\.displayName).joined(separator: " ") }
}
