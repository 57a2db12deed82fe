/// Why there is no agent to talk to.
public enum AgentError: Error, Sendable, CustomStringConvertible {
    /// No agent runs for this vault (no socket, or a stale one left by a killed agent).
    case absent
    /// The directory or socket is not safe to use; the sentence says why.
    case unusable(String)
    /// The agent answered with something this client does not understand.
    case protocolError(String)

    public var description: String {
        switch self {
        case .absent: return "No agent holds this vault unlocked; run `coffer unlock`."
        case .unusable(let sentence): return sentence
        case .protocolError(let detail): return "The agent's answer could not be read (\(detail)); run `coffer lock` and `coffer unlock`."
        }
    }
}
