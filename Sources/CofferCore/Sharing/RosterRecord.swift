import Foundation

/// A roster entry as the Kinto record `roster/SEQ` holds it: `{"entry": base64 of its encoding}`.
///
/// The record's id is its position in the chain, ten digits (`0000000007`): written once each
/// (`If-None-Match: *`), so two members appending at once cannot both take a position.
public struct RosterRecord: Sendable, Equatable {
    public static let collection = "roster"
    static let idLength = 10

    public let entry: RosterEntry

    public init(entry: RosterEntry) {
        self.entry = entry
    }

    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not a JSON object with an `entry` text of base64.
        case notARecord
        case malformed(RosterEntry.Malformed)

        public var description: String {
            switch self {
            case .notARecord: return "The roster record is not an object holding an entry in base64."
            case .malformed(let malformed): return malformed.description
            }
        }
    }

    private struct Body: Codable {
        var entry: String
    }

    /// The record's data as sent (the server adds `id` and `last_modified`).
    public var json: Data {
        // Base64 needs no escaping in a JSON string.
        Data(#"{"entry":"\#(entry.encoded.base64EncodedString())"}"#.utf8)
    }

    /// The record the server served; members besides `entry` (`id`, `last_modified`) are ignored.
    public init(json: Data) throws(Problem) {
        guard let body = try? JSONDecoder().decode(Body.self, from: json), let bytes = Data(base64Encoded: body.entry) else {
            throw .notARecord
        }
        do throws(RosterEntry.Malformed) {
            entry = try RosterEntry(encoded: bytes)
        } catch {
            throw .malformed(error)
        }
    }

    /// The record id of `position` (0 or more).
    public static func id(position: Int) -> String {
        precondition(position >= 0)
        let digits = String(position)
        return String(repeating: "0", count: max(0, idLength - digits.count)) + digits
    }

    /// The position a record id names; nil for an id that is not ten digits.
    public static func position(ofID id: String) -> Int? {
        guard id.utf8.count == idLength, id.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(id)
    }
}
