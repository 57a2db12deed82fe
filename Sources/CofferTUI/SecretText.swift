/// Text a person types or copies that must not leak: a passphrase, a password on its way to the
/// clipboard.
///
/// It prints as a redacted placeholder, so a logged state or a failing test never shows it. It is
/// a value (the state is one), so it cannot promise to be zeroed: keep it short-lived, and turn it
/// into a `SecureBuffer` at the edge (`withBuffer`).
public struct SecretText: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
                          ExpressibleByStringLiteral {
    public private(set) var characters: [Character]

    public init(_ text: String = "") { characters = Array(text) }

    public init(stringLiteral value: String) { self.init(value) }

    public var isEmpty: Bool { characters.isEmpty }
    public var count: Int { characters.count }

    /// The plain text, for the few places that need it (the strength estimate, the clipboard).
    public var revealed: String { String(characters) }

    public mutating func append(_ character: Character) { characters.append(character) }

    public mutating func removeLast() {
        if !characters.isEmpty { characters.removeLast() }
    }

    public mutating func removeAll() { characters.removeAll() }

    public var description: String { "SecretText(\(characters.count) characters)" }
    public var debugDescription: String { description }
}
