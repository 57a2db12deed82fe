import Foundation

/// `coffer://NAME/FIELD`: one value of one item, named the way the command line names them —
/// NAME as an item argument is resolved (id, id prefix, title, part of a title), FIELD as
/// `show --field` takes it (`FieldSelector`). Used by `read`, `run` and `inject`.
///
/// NAME runs to the last `/`, so FIELD never holds one; `%XX` escapes are decoded in both, for a
/// title with a `/` (`%2F`) or a `%` (`%25`) in it.
public struct SecretReference: Sendable, Hashable, CustomStringConvertible {
    public static let scheme = "coffer://"

    public var name: String
    public var field: String

    public init(name: String, field: String) {
        self.name = name
        self.field = field
    }

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case malformed(String)

        public var description: String {
            switch self {
            case .malformed(let text):
                return "“\(TerminalText.name(text, limit: 80))” is not a reference of the form coffer://NAME/FIELD"
            }
        }
    }

    /// Whether `text` claims to be a reference (a value that is not one is left as it is).
    public static func isReference(_ text: String) -> Bool { text.hasPrefix(scheme) }

    /// The reference `text` spells, or nil when it does not start with `coffer://`.
    ///
    /// - Throws: `.malformed` when it starts with the scheme but names no item or no field, holds
    ///   a control character, or has a broken `%` escape: a typo must stop, not pass through as text.
    public static func parse(_ text: String) throws(Problem) -> SecretReference? {
        guard isReference(text) else { return nil }
        let body = text.dropFirst(scheme.count)
        guard let slash = body.lastIndex(of: "/"),
              let name = String(body[..<slash]).removingPercentEncoding,
              let field = String(body[body.index(after: slash)...]).removingPercentEncoding,
              !name.isEmpty, !field.isEmpty,
              !(name + field).unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .malformed(text) }
        return SecretReference(name: name, field: field)
    }

    public var description: String { Self.scheme + name + "/" + field }
}
