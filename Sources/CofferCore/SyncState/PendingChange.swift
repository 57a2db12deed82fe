/// A row of the `pending` table: one change waiting to be applied, from this device or the server.
///
/// At most one row exists per (source, collection, id); a newer change for the same target
/// replaces it, so many offline edits of one item become one change.
public struct PendingChange: Sendable, Equatable {
    public enum Source: String, Sendable { case local, remote }
    public enum Action: String, Sendable { case add, update, remove }

    public var key: Int64?
    public var collection: CollectionName
    public var id: String
    public var source: Source
    public var action: Action
    /// The server timestamp the change is based on (local) or carries (remote); 0 if never synced.
    public var lastModified: Int64
    /// The full record as JSON (`ItemRecord` or `KeystoreRecord`).
    public var record: String

    public init(key: Int64? = nil, collection: CollectionName, id: String, source: Source, action: Action,
                lastModified: Int64, record: String) {
        self.key = key
        self.collection = collection
        self.id = id
        self.source = source
        self.action = action
        self.lastModified = lastModified
        self.record = record
    }

    /// Whether this is an item removal sealed by a key holder (`RemovalSealing`), which goes up as
    /// an update the server keeps, not as a `DELETE`.
    public var isSealedItemRemoval: Bool {
        collection == .items && action == .remove
            && (try? RecordCoding.decode(ItemRecord.self, from: record))?.isSealedRemoval == true
    }

    /// This device's removal of item `id`, based on the server's version `lastModified` (0: a
    /// version no server answer has confirmed yet).
    public static func itemRemoval(id: String, basedOn lastModified: Int64) -> PendingChange {
        PendingChange(collection: .items, id: id, source: .local, action: .remove, lastModified: lastModified,
                      record: ItemRecordJSON.encode(ItemRecord.tombstone(id: id, lastModified: lastModified)))
    }
}
