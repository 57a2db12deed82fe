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

    /// An integer from a parsed JSON value, whatever numeric type the platform chose.
    package static func int64(_ value: Any?) -> Int64? {
        switch value {
        case let number as Int: return Int64(number)
        case let number as Int64: return number
        case let number as NSNumber:
            let double = number.doubleValue
            guard double.rounded() == double, abs(double) < 9.0e18 else { return nil }
            return number.int64Value
        default: return nil
        }
    }

    /// The `message` (or `error`) of a Kinto error body, if it has one.
    static func errorMessage(_ body: Any?) -> String? {
        guard let object = body as? [String: Any] else { return nil }
        return (object["message"] as? String) ?? (object["error"] as? String)
    }
}
