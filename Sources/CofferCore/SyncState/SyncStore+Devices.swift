import Foundation
import GRDB

/// A message listed for this device and what became of it.
public struct InboxEntry: Sendable, Equatable {
    public var record: MessageRecord
    /// Handled or refused here; only its deletion on the server is left.
    public var isDone: Bool
}

/// The device registry, the outbox, the inbox and the handled ids (architecture §9), as the device and
/// message steps see them inside one transaction.
extension SyncStore {
    // MARK: Meta and markers

    public func meta(_ key: MetaKey) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key.rawValue])
    }

    public func marker(_ collection: DeviceCollectionName) throws -> String? {
        try marker(named: collection.rawValue)
    }

    /// Nil forgets it: the next listing is a full one (no `If-None-Match`).
    public func setMarker(_ collection: DeviceCollectionName, _ etag: String?) throws {
        try setMarker(named: collection.rawValue, etag)
    }

    // MARK: Devices

    public func deviceRecords() throws -> [DeviceRecord] {
        try String.fetchAll(db, sql: "SELECT record FROM devices ORDER BY id").map {
            try DeviceJSON.decoder.decode(DeviceRecord.self, from: Data($0.utf8))
        }
    }

    /// Replaces the registry with a full listing from the server.
    public func replaceDeviceRecords(_ records: [DeviceRecord]) throws {
        try db.execute(sql: "DELETE FROM devices")
        for record in records { try saveDeviceRecord(record) }
    }

    public func saveDeviceRecord(_ record: DeviceRecord) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO devices (id, last_modified, record) VALUES (?, ?, ?)",
                       arguments: [record.id, record.lastModified ?? 0,
                                   String(decoding: try DeviceJSON.encoder.encode(record), as: UTF8.self)])
    }

    public func deleteDeviceRecord(_ id: String) throws {
        try db.execute(sql: "DELETE FROM devices WHERE id = ?", arguments: [id])
    }

    /// The devices this device removed with `device rm --rotate` (`MetaKey.removedDevices`).
    public func removedDevices() throws -> Set<String> {
        guard let text = try meta(.removedDevices) else { return [] }
        return Set((try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? [])
    }

    /// Remembers that `id` was removed with `--rotate`, and forgets its record here.
    public func rememberRemovedDevice(_ id: String) throws {
        let ids = try removedDevices().union([id]).sorted()
        try setMeta([.removedDevices: String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)])
        try deleteDeviceRecord(id)
    }

    // MARK: Outbox

    public func outbox() throws -> [MessageRecord] {
        try String.fetchAll(db, sql: "SELECT record FROM outbox ORDER BY rowid").map(MessageRecord.decode)
    }

    public func addToOutbox(_ record: MessageRecord) throws {
        try db.execute(sql: "INSERT INTO outbox (id, record) VALUES (?, ?)", arguments: [record.id, try record.text()])
    }

    public func removeFromOutbox(_ id: String) throws {
        try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
    }

    // MARK: Inbox

    public func inbox() throws -> [InboxEntry] {
        try Row.fetchAll(db, sql: "SELECT record, done FROM inbox ORDER BY rowid").map {
            InboxEntry(record: try MessageRecord.decode($0["record"]), isDone: $0["done"])
        }
    }

    /// Makes the inbox what the server lists for this device: new messages join (already done
    /// when their id was handled before: a replay, or a listing after a crash), gone ones leave.
    public func replaceInbox(with listed: [MessageRecord]) throws {
        let ids = listed.map(\.id)
        let kept = Set(try String.fetchAll(db, sql: "SELECT id FROM inbox"))
        try db.execute(sql: "DELETE FROM inbox WHERE id NOT IN (SELECT value FROM json_each(?))",
                       arguments: [String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)])
        for record in listed where !kept.contains(record.id) {
            try db.execute(sql: "INSERT INTO inbox (id, record, done) VALUES (?, ?, ?)",
                           arguments: [record.id, try record.text(), try isHandled(record.id)])
        }
    }

    public func markDone(_ id: String) throws {
        try db.execute(sql: "UPDATE inbox SET done = 1 WHERE id = ?", arguments: [id])
    }

    public func removeFromInbox(_ id: String) throws {
        try db.execute(sql: "DELETE FROM inbox WHERE id = ?", arguments: [id])
    }

    // MARK: Handled

    public func isHandled(_ id: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM handled WHERE id = ?", arguments: [id]) ?? false
    }

    public func recordHandled(_ id: String, expires: Int64) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO handled (id, expires) VALUES (?, ?)", arguments: [id, expires])
    }

    /// Forgets ids whose messages expired before `cutoff`: the server refuses nothing older, and
    /// handling drops expired messages before looking here.
    public func pruneHandled(expiredBefore cutoff: Int64) throws {
        try db.execute(sql: "DELETE FROM handled WHERE expires < ?", arguments: [cutoff])
    }
}
