import CofferSync

/// How a sync ended, as `coffer sync` reports it: the same whether this process or the agent ran it.
public struct SyncOutcome: Codable, Sendable, Equatable {
    public var error: SyncErrorName?
    public var message: String?
    public var downloaded: Int
    public var uploaded: Int
    public var merged: Int
    public var clockWarning: String?
    /// Set when the vault, not the server, stopped the sync (`SyncReport.isLocalFailure`).
    public var isLocalFailure: Bool?

    public init(_ report: SyncReport) {
        error = report.error
        message = report.message
        downloaded = report.downloaded
        uploaded = report.uploaded
        merged = report.merged
        clockWarning = report.clockSkew?.warning
        isLocalFailure = report.isLocalFailure
    }
}
