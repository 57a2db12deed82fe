/// One row of the key table: keys, what they do, where, and when they do nothing.
public struct KeyBinding: Sendable {
    public var keys: [Key]
    public var action: Action
    /// What the help screen says.
    public var description: String
    /// The short form in the hint line; nil keeps the binding out of it.
    public var hint: String?
    public var contexts: Set<KeyContext>
    /// Why the binding does nothing in this state (shown when pressed, and in help); nil when enabled.
    public var disabledReason: @Sendable (ScreenState) -> String?

    public init(keys: [Key], action: Action, description: String, hint: String? = nil, contexts: Set<KeyContext>,
                disabledReason: @escaping @Sendable (ScreenState) -> String? = { _ in nil }) {
        self.keys = keys
        self.action = action
        self.description = description
        self.hint = hint
        self.contexts = contexts
        self.disabledReason = disabledReason
    }

    /// The keys as the help screen lists them ("↓ j").
    public var keyNames: String { keys.map(\.displayName).joined(separator: " ") }
}
