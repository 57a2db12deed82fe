import CCurl
import Foundation

/// HTTP headers looked up by name regardless of case.
///
/// Kinto's raw answers say `Etag` and `Next-Page`, its batch answers say `ETag` and `Retry-After`
/// inside JSON: every lookup goes through here so the spelling never matters.
package struct KintoHeaders: Sendable, Equatable {
    private var values: [String: String] = [:]

    init() {}

    /// Headers as received: `Name: value` lines after the status line.
    init(raw: Data) {
        for line in String(decoding: raw, as: UTF8.self).split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            values[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// Headers of a batch sub-response: a JSON object of strings.
    init(json: Any?) {
        guard let object = json as? [String: Any] else { return }
        for (name, value) in object {
            values[name.lowercased()] = (value as? String) ?? String(describing: value)
        }
    }

    subscript(name: String) -> String? {
        values[name.lowercased()]
    }

    /// The longest wait a server can impose through `Backoff` or `Retry-After`: a day.
    static let longestWait: TimeInterval = 86_400

    /// A header holding a number of seconds (`Backoff`, `Retry-After`), if present and sane, at
    /// most `longestWait` (`Backoff: 1e300` would otherwise give a deadline that traps when the
    /// vault stores it, and a few digits fewer one it cannot read back).
    package func seconds(_ name: String) -> TimeInterval? {
        guard let text = self[name]?.trimmingCharacters(in: .whitespaces),
              let value = Double(text), value.isFinite, value >= 0 else { return nil }
        return min(value, Self.longestWait)
    }
}

/// One answer from the server, its body read in full.
struct KintoResponse: Sendable {
    var status: Int
    var headers: KintoHeaders
    var body: Data
}

/// One HTTP request as the client builds it.
struct KintoRequest: Sendable {
    var url: URL
    var httpMethod = "GET"
    var httpBody: Data?
    private(set) var headers: [String: String] = [:]

    init(url: URL) {
        self.url = url
    }

    mutating func setValue(_ value: String, forHTTPHeaderField name: String) {
        headers[name] = value
    }
}
