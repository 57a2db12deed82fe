import Foundation

/// A template for `coffer inject`: text with `{{ coffer://NAME/FIELD }}` in it.
///
/// A `{{` not followed by `coffer://` (after spaces) is left as text, so templates of other tools
/// pass through. A reference must close with `}}` on its own line. Values are put in once, as they
/// are: a value that itself reads `{{ coffer://… }}` is never expanded again.
public struct SecretTemplate: Sendable {
    public enum Piece: Sendable, Equatable {
        case text(String)
        case reference(SecretReference)
    }

    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String

        public var description: String { "line \(line): \(reason)" }
    }

    public var pieces: [Piece]

    public var references: [SecretReference] {
        pieces.compactMap { if case .reference(let reference) = $0 { reference } else { nil } }
    }

    public init(parsing text: String) throws(Problem) {
        pieces = []
        var rest = Substring(text)
        var line = 1
        while let open = rest.range(of: "{{") {
            let inside = rest[open.upperBound...].drop { $0 == " " || $0 == "\t" }
            guard inside.hasPrefix(SecretReference.scheme) else {
                pieces.append(.text(String(rest[..<open.upperBound])))
                line += rest[..<open.upperBound].count(where: { $0 == "\n" })
                rest = rest[open.upperBound...]
                continue
            }
            pieces.append(.text(String(rest[..<open.lowerBound])))
            line += rest[..<open.lowerBound].count(where: { $0 == "\n" })
            guard let close = inside.range(of: "}}"), !inside[..<close.lowerBound].contains("\n") else {
                throw Problem(line: line, reason: "a {{ coffer://… reference is not closed with }} on its line")
            }
            let spelled = inside[..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            let reference: SecretReference?
            do {
                reference = try SecretReference.parse(spelled)
            } catch {
                throw Problem(line: line, reason: error.description)
            }
            guard let reference else { throw Problem(line: line, reason: SecretReference.Problem.malformed(spelled).description) }
            pieces.append(.reference(reference))
            rest = inside[close.upperBound...]
        }
        pieces.append(.text(String(rest)))
    }

    /// The text with each reference replaced by its value (every reference must have one).
    public func rendered(with values: [SecretReference: String]) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .reference(let reference): values[reference] ?? ""
            }
        }.joined()
    }
}
