import Foundation

/// One fuzz executable (`Sources/Fuzz*`): its name, which is also its seed corpus directory
/// (`Resources/fuzz/<name>`), and the check it runs on every input.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case records = "FuzzRecords"
    case envelope = "FuzzEnvelope"
    case itemJSON = "FuzzItemJSON"
    case importFile = "FuzzImport"
    case kintoResponses = "FuzzKintoResponses"
    case foreignImport = "FuzzForeignImport"
    case deviceMessages = "FuzzDeviceMessages"
    case invitations = "FuzzInvitations"
    case roster = "FuzzRoster"
    case sshAgent = "FuzzSSHAgent"
    case config = "FuzzConfig"

    /// Throws `FuzzViolation` when the input breaks an invariant.
    public func check(_ data: Data) throws {
        switch self {
        case .records: try FuzzChecks.records(data)
        case .envelope: try FuzzChecks.envelope(data)
        case .itemJSON: try FuzzChecks.itemJSON(data)
        case .importFile: try FuzzChecks.importFile(data)
        case .kintoResponses: try KintoFuzzChecks.responses(data)
        case .foreignImport: try FuzzChecks.foreignImport(data)
        case .deviceMessages: try FuzzChecks.deviceMessages(data)
        case .invitations: try FuzzChecks.invitations(data)
        case .roster: try FuzzChecks.roster(data)
        case .sshAgent: try FuzzChecks.sshAgent(data)
        case .config: try FuzzChecks.config(data)
        }
    }
}
