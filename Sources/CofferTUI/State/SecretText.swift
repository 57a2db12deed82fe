/// Text a person types or copies that must not leak: a passphrase, a password on its way to the
/// clipboard.
///
/// It prints as a redacted placeholder, so a logged state or a failing test never shows it. It is
/// a value (the state is one), so it cannot promise to be zeroed: keep it short-lived, and turn it
/// into a `SecureBuffer` at the edge (`withBuffer`).
struct SecretText: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
                          ExpressibleByStringLiteral {
    private(set) var characters: [Character]

    init(_ text: String = "") { characters = Array(text) }

    init(stringLiteral value: String) { self.init(value) }

    var isEmpty: Bool { characters.isEmpty }
    var count: Int { characters.count }

    /// The plain text, for the few places that need it (the strength estimate, the clipboard).
    var revealed: String { String(characters) }

    mutating func append(_ character: Character) { characters.append(character) }

    mutating func removeLast() {
        if !characters.isEmpty { characters.removeLast() }
    }

    mutating func removeAll() { characters.removeAll() }

    var description: String { "SecretText(\(characters.count) characters)" }
    var debugDescription: String { description }
}
