import Foundation

/// What git tells a credential helper (`git help credential`, "INPUT/OUTPUT FORMAT"):
/// `key=value` lines ended by a blank line. Only the keys Coffer matches on are kept; the others
/// (`wwwauth[]`, `capability[]`, …) are skipped, as the protocol asks of helpers.
public struct GitCredentialMessage: Sendable, Equatable {
    /// Far more than git sends (a few hundred bytes): the end of what a helper reads.
    public static let sizeLimit = 64 << 10

    public var protocolName: String?
    public var host: String?
    public var path: String?
    public var username: String?
    public var password: String?

    public init(protocolName: String? = nil, host: String? = nil, path: String? = nil, username: String? = nil,
                password: String? = nil) {
        self.protocolName = protocolName
        self.host = host
        self.path = path
        self.username = username
        self.password = password
    }

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notUTF8
        case malformedLine(Int)
        case repeatedKey(String)
        case tooLarge

        public var description: String {
            switch self {
            case .notUTF8: return "git's credential request is not UTF-8"
            case .malformedLine(let number): return "line \(number) of git's credential request is not key=value"
            case .repeatedKey(let key): return "git's credential request gives “\(key)” twice"
            case .tooLarge: return "git's credential request is over \(sizeLimit >> 10) KiB"
            }
        }
    }

    /// Parses the lines before the first blank line (`text` may hold that line or end without it).
    public init(parsing data: Data) throws(Problem) {
        guard data.count <= Self.sizeLimit else { throw .tooLarge }
        guard let text = String(validating: data, as: UTF8.self) else { throw .notUTF8 }
        var seen: Set<String> = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex,
                  !line.contains("\0") else { throw .malformedLine(index + 1) }
            let key = String(line[..<equals])
            let value = String(line[line.index(after: equals)...])
            if key.hasSuffix("[]") { continue }
            guard seen.insert(key).inserted else { throw .repeatedKey(key) }
            switch key {
            case "protocol": protocolName = value
            case "host": host = value
            case "path": path = value
            case "username": username = value
            case "password": password = value
            default: continue
            }
        }
    }

    /// The answer to `get`: `username=`/`password=` lines. Nil when a value holds a line break or
    /// a NUL, which would end the value early and let the rest be read as lines of their own
    /// (`host=…` of an attacker's choosing).
    public static func answer(username: String, password: String) -> String? {
        guard ![username, password].contains(where: { $0.contains(where: { "\n\r\0".contains($0) }) }) else { return nil }
        return "username=\(username)\npassword=\(password)\n"
    }
}
