/// What `coffer status` shows of an agent.
public struct AgentStatus: Codable, Sendable, Equatable {
    public var pid: Int32
    /// The vault's real path: a client checks that the agent it reached holds its vault.
    public var vault: String
    /// The idle limit (0: none) and the seconds left before it locks.
    public var idleSeconds: Double
    public var locksInSeconds: Double?

    public init(pid: Int32, vault: String, idleSeconds: Double, locksInSeconds: Double?) {
        self.pid = pid
        self.vault = vault
        self.idleSeconds = idleSeconds
        self.locksInSeconds = locksInSeconds
    }
}
