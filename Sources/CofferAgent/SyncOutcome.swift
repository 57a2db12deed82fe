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

    /// The sync took nothing in and ended well: nothing fetched or merged (a refusal or a
    /// rollback is an error, a new epoch a fetched keystore). Item rows then changed only by its
    /// own acknowledged pushes, which change no item's content: the agent keeps its index instead
    /// of scanning every row again (0.5–0.7 s at 100,000 items after each idle periodic sync).
    public var tookNothingIn: Bool { downloaded == 0 && merged == 0 && error == nil }

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
