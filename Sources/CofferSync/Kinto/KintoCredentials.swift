/// An account on the Kinto server (accounts plugin, HTTP Basic).
public struct KintoCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

extension KintoCredentials: CustomStringConvertible {
    /// Never shows the password (logs, test failures).
    public var description: String { "KintoCredentials(user: \(user), password: ***)" }
}
