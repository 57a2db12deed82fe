import CofferCore
import Crypto
import Foundation

/// The names a host key is known by in OpenSSH's `known_hosts` (sshd(8), SSH_KNOWN_HOSTS FILE
/// FORMAT): what lets a key limited to "github.com" be offered to the server whose host key the
/// user's own ssh recorded under that name. Plain and hashed (`|1|salt|hash`) names, comma-separated
/// patterns with `*`, `?` and `!`; a host key marked `@revoked` is known by no name;
/// `@cert-authority` lines name CAs, not hosts, and are skipped.
struct KnownHosts: Sendable {
    struct Line: Sendable {
        var patterns: String
        var key: Data
        var isRevoked: Bool
    }

    let lines: [Line]

    /// The largest file read: bigger ones are ignored (no name known, so limited keys stay hidden).
    static let maximumSize = 16 << 20

    init(text: String) {
        lines = text.split(whereSeparator: \.isNewline).compactMap(Self.line)
    }

    /// `$HOME/.ssh/known_hosts` of the agent's environment (the user's own file), then the system's.
    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) -> KnownHosts {
        let home = UserDirectories.home(environment: environment)
        let texts = [home + "/.ssh/known_hosts", "/etc/ssh/ssh_known_hosts"].compactMap { path -> String? in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  (attributes[.size] as? Int ?? .max) <= maximumSize else { return nil }
            return try? String(contentsOfFile: path, encoding: .utf8)
        }
        return KnownHosts(text: texts.joined(separator: "\n"))
    }

    /// Whether `hostKey` is recorded under one of `names` (and not revoked).
    func knows(_ hostKey: Data, asOneOf names: [String]) -> Bool {
        let matching = lines.filter { $0.key == hostKey }
        if matching.contains(where: \.isRevoked) { return false }
        return matching.contains { line in names.contains { Self.matches(line.patterns, name: $0) } }
    }

    private static func line(_ raw: Substring) -> Line? {
        var fields = raw.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = fields.first, !first.hasPrefix("#") else { return nil }
        var isRevoked = false
        if first.hasPrefix("@") {
            guard first == "@revoked" else { return nil }
            isRevoked = true
            fields.removeFirst()
        }
        guard fields.count >= 3, let key = Data(base64Encoded: fields[2]) else { return nil }
        return Line(patterns: fields[0], key: key, isRevoked: isRevoked)
    }

    /// A line's host field against one name: a hashed entry by HMAC-SHA1 of the name under its
    /// salt; else any negated pattern that matches refuses, any other that matches accepts.
    static func matches(_ patterns: String, name: String) -> Bool {
        let name = name.lowercased()
        if patterns.hasPrefix("|1|") {
            let parts = patterns.split(separator: "|", omittingEmptySubsequences: false)
            guard parts.count == 4, let salt = Data(base64Encoded: String(parts[2])),
                  let hash = Data(base64Encoded: String(parts[3])) else { return false }
            let code = HMAC<Insecure.SHA1>.authenticationCode(for: Data(name.utf8), using: SymmetricKey(data: salt))
            return Data(code) == hash
        }
        var isMatched = false
        for pattern in patterns.lowercased().split(separator: ",") {
            if pattern.hasPrefix("!") {
                if glob(Array(pattern.dropFirst()), Array(name)) { return false }
            } else if glob(Array(pattern), Array(name)) {
                isMatched = true
            }
        }
        return isMatched
    }

    /// `*` any run of characters, `?` one; iterative, so a hostile pattern costs at most
    /// pattern × name steps.
    static func glob(_ pattern: [Character], _ text: [Character]) -> Bool {
        var (p, t) = (0, 0)
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == "?" || pattern[p] == text[t]) {
                p += 1
                t += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
