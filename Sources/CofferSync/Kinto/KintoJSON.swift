import CofferCore
import Foundation

/// Small helpers over `JSONSerialization` for the loosely shaped parts of Kinto's answers.
package enum KintoJSON {
    /// Parses `data` as a JSON object.
    package static func object(_ data: Data, what: String) throws -> [String: Any] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw KintoError.network(message: "malformed JSON in the \(what)")
        }
        guard let object = parsed as? [String: Any] else {
            throw KintoError.network(message: "the \(what) is not a JSON object")
        }
        return object
    }

    /// Writes a JSON object with sorted keys, so equal records give equal bytes.
    static func data(_ object: Any) throws -> Data {
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw KintoError.network(message: "a value could not be written as JSON")
        }
    }

    /// `{"data": fields}` for a record of strings, written by `JSONEncoder` (sorted keys, the same
    /// escapes as `data(_:)`): `JSONSerialization` writes a long string a character at a time, and a
    /// 16 MiB file's chunks (33 × 700 KB of base64) took it ~1 s of CPU, `JSONEncoder` ~50 ms.
    static func data(record fields: [String: String]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(["data": fields])
        } catch {
            throw KintoError.network(message: "a value could not be written as JSON")
        }
    }

    /// An integer from a parsed JSON value, whatever numeric type the platform chose.
    package static func int64(_ value: Any?) -> Int64? {
        // Only a number written whole ("1", not "1.0", "1e3" or "…436.9999999999", which becomes a
        // decimal that truncates to …436 while a double rounds it to …437), within 2^53: what the
        // records' own reader (`JSONScanner.readWholeNumber`) takes, so the two never disagree.
        // `as? Int` would not do: a parsed 1.0 bridges to 1.
        guard let number = value as? NSNumber, !["f", "d"].contains(String(cString: number.objCType)) else { return nil }
        let whole = number.int64Value
        guard number.compare(NSNumber(value: whole)) == .orderedSame,
              whole.magnitude <= JSONScanner.largestWholeNumber.magnitude else { return nil }
        return whole
    }

    /// The `message` (or `error`) of a Kinto error body, if it has one, made safe to show, log and
    /// store (`TerminalText.message`: escaped, one line, cut): its bytes are the server's.
    static func errorMessage(_ body: Any?) -> String? {
        guard let object = body as? [String: Any] else { return nil }
        return ((object["message"] as? String) ?? (object["error"] as? String)).map(TerminalText.message)
    }
}
