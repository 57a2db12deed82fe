import Foundation

/// The answer to `KintoClient.fetchChanges`.
public enum KintoChanges: Sendable, Equatable {
    /// Nothing changed since the marker (304): keep the marker.
    case notModified
    /// Every record changed since the marker (all of them without one), oldest first, one entry
    /// per id: each is the server's JSON object, a deletion being `{id, last_modified, deleted:
    /// true}`. `etag` is the collection's new marker, without quotes; store it once the records
    /// are saved.
    case changes(records: [Data], etag: String)
}

/// What the server allows, from `GET /v1/`.
public struct KintoServerLimits: Sendable, Equatable {
    /// The most sub-requests one `POST /batch` may hold (`settings.batch_max_requests`).
    public var batchMaxRequests: Int

    public init(batchMaxRequests: Int) {
        self.batchMaxRequests = batchMaxRequests
    }

    /// Kinto's default when the server does not say.
    public static let kintoDefault = KintoServerLimits(batchMaxRequests: 25)
}
