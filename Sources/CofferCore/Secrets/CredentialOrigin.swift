/// A login's origin as the git credential helper matches it against what git asks for: the
/// protocol and host exactly (ports included, a default port dropped), and the origin's path, when
/// it has one, as a whole-segment prefix of the request's.
///
/// Strict on purpose: a remote picks the host and path git asks for, so a loose match (a suffix
/// of the host, a bare host served over http) would hand a login to a server that names itself
/// like its owner's.
public struct CredentialOrigin: Sendable, Equatable {
    public var protocolName: String
    /// Lowercased, with `:port` unless the port is the protocol's default.
    public var host: String
    /// Without leading or trailing `/`; empty for the whole host.
    public var path: String

    /// The origin a login keeps (`https://git.example.org/team`, `github.com`); a bare host means
    /// https. Nil when it names no host.
    public init?(origin: String) {
        let scheme: String
        var rest: Substring
        if let separator = origin.range(of: "://") {
            scheme = origin[..<separator.lowerBound].lowercased()
            rest = origin[separator.upperBound...]
        } else {
            scheme = "https"
            rest = Substring(origin)
        }
        rest = rest.prefix { $0 != "?" && $0 != "#" }
        let authority = rest.prefix { $0 != "/" }
        // user@host: the host is after the last `@`, as a browser reads `https://bank.com@evil.org`.
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        self.init(protocolName: scheme, host: host, path: String(rest.dropFirst(authority.count)))
    }

    /// What git asked for (`protocol=`, `host=`, `path=`). Nil without a protocol or host.
    public init?(protocolName: String, host: String, path: String) {
        let normalizedHost = Self.normalized(host: host, protocolName: protocolName.lowercased())
        guard !protocolName.isEmpty, !normalizedHost.isEmpty else { return nil }
        self.protocolName = protocolName.lowercased()
        self.host = normalizedHost
        var trimmed = Substring(path)
        while trimmed.first == "/" { trimmed = trimmed.dropFirst() }
        while trimmed.last == "/" { trimmed = trimmed.dropLast() }
        self.path = String(trimmed)
    }

    /// How closely this origin serves `request` (the longer its path, the closer), or nil when it
    /// does not. A request without a path (git's default, `credential.useHttpPath` off) is served
    /// only by origins without one.
    public func specificity(serving request: CredentialOrigin) -> Int? {
        guard protocolName == request.protocolName, host == request.host else { return nil }
        if path.isEmpty { return 0 }
        guard request.path == path || request.path.hasPrefix(path + "/") else { return nil }
        return path.count
    }

    private static func normalized(host: String, protocolName: String) -> String {
        let lowered = host.lowercased()
        guard let colon = lowered.lastIndex(of: ":"), !lowered[colon...].contains("]") else { return lowered }
        let port = lowered[lowered.index(after: colon)...]
        let isDefault = (protocolName == "https" && port == "443") || (protocolName == "http" && port == "80")
        return isDefault || port.isEmpty ? String(lowered[..<colon]) : lowered
    }
}
