import Foundation

/// How far one listing (`KintoClient.fetchChanges`) may go before it is given up as a server
/// that does not answer properly: one that sends a new `Next-Page` link for ever would otherwise
/// keep a sync (and the agent's periodic sync, which carries remote locks) running with growing
/// memory.
///
/// The defaults are far above any real vault: Kinto pages hold up to 10,000 records, so a million
/// records (a vault of 100,000 items changed ten times over between two syncs) is 100 pages, and
/// 10,000 pages still leave room for a server configured with pages of 100. Ten minutes is many
/// times the time such a listing takes on a slow line. Tests pass small ones.
public struct KintoFetchLimits: Sendable, Equatable {
    /// Pages of one listing, the first included.
    public var pages: Int
    /// Records of one listing, counted as they come (before duplicates are dropped).
    public var records: Int
    /// Seconds from the first request of a listing until its last page.
    public var seconds: TimeInterval

    public init(pages: Int, records: Int, seconds: TimeInterval) {
        self.pages = pages
        self.records = records
        self.seconds = seconds
    }

    public static let standard = KintoFetchLimits(pages: 10_000, records: 1_000_000, seconds: 600)

    /// Why a listing of `collection` stops here, or nil while it is within the limits.
    func exceeded(by collection: String, pages: Int, records: Int, elapsed: TimeInterval) -> KintoError? {
        if pages > self.pages {
            return .network(message: "the listing of \(collection) went on past \(self.pages) pages, more than any vault needs; nothing of it was kept")
        }
        if records > self.records {
            return .network(message: "the listing of \(collection) went on past \(self.records) records, more than any vault holds; nothing of it was kept")
        }
        if elapsed > seconds {
            return .network(message: "the listing of \(collection) took longer than \(Int(seconds.rounded())) s; nothing of it was kept")
        }
        return nil
    }
}
