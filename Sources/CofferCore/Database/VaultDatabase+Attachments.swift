import Foundation
import GRDB

/// The `attachments` and `attachment_chunks` tables, every statement on them in one place
/// (architecture §3): sealed files, what sync owes the server for each, and downloads in progress.
extension VaultDatabase {
    /// What sync still has to do on the server for a file.
    package enum AttachmentState: String, Sendable {
        /// On the server (uploaded here, or downloaded).
        case stable
        /// Added here; its chunks are not all on the server yet.
        case upload
        /// Removed here; its chunks are still on the server.
        case remove
        /// The server deleted its chunks (another device removed it, or a hostile server): the
        /// bytes stay until an unlocked sync knows whether an item still names the file.
        case loose
    }

    /// A stored file as sync sees it (the bytes stay sealed).
    package struct StoredAttachment: Sendable, Equatable {
        package var id: String
        package var sealed: Data?
        package var chunks: Int
        package var state: AttachmentState
    }

    static func saveAttachment(_ attachment: StoredAttachment, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO attachments (id, sealed, chunks, state) VALUES (?, ?, ?, ?)",
                       arguments: [attachment.id, attachment.sealed, attachment.chunks, attachment.state.rawValue])
    }

    package static func storedAttachment(_ id: String, in db: Database) throws -> StoredAttachment? {
        try Row.fetchOne(db, sql: "SELECT id, sealed, chunks, state FROM attachments WHERE id = ?", arguments: [id])
            .map(storedAttachment)
    }

    /// The files whose chunks sync still has to send or delete.
    package static func attachments(in state: AttachmentState, in db: Database) throws -> [StoredAttachment] {
        try Row.fetchAll(db, sql: "SELECT id, sealed, chunks, state FROM attachments WHERE state = ? ORDER BY id",
                         arguments: [state.rawValue]).map(storedAttachment)
    }

    /// The ids of the files in `state`, without their bytes (one file's are read when needed).
    package static func attachmentIDs(in state: AttachmentState, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT id FROM attachments WHERE state = ? ORDER BY id", arguments: [state.rawValue])
    }

    /// Every file id stored here, in any state.
    package static func attachmentIDs(in db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT id FROM attachments"))
    }

    /// The files whose bytes are all here (added here, or downloaded whole): the others an item
    /// names are still on their way from the server.
    package static func arrivedAttachmentIDs(in db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT id FROM attachments WHERE sealed IS NOT NULL"))
    }

    /// Marks a file removed here: its bytes go now, its chunks at the next sync. A file that never
    /// reached the server is simply dropped.
    static func markAttachmentRemoved(_ id: String, in db: Database) throws {
        guard let stored = try storedAttachment(id, in: db) else { return }
        // A file still waiting to go up may have chunks on the server all the same: a sync cut
        // short, or one sending it at this moment in another process. So it is deleted there too
        // (a chunk that never went is a 404, which is fine): never left on the server for good.
        try saveAttachment(StoredAttachment(id: id, sealed: nil, chunks: stored.chunks, state: .remove), in: db)
        try db.execute(sql: "DELETE FROM attachment_chunks WHERE attachment = ?", arguments: [id])
    }

    /// Marks a file sent, unless it changed meanwhile: removed by another process while its
    /// chunks went up, it stays `remove` (and its chunks are deleted), never `stable` without bytes.
    package static func markAttachmentUploaded(_ id: String, in db: Database) throws {
        try db.execute(sql: "UPDATE attachments SET state = 'stable' WHERE id = ? AND state = 'upload'", arguments: [id])
    }

    package static func setAttachmentState(_ id: String, _ state: AttachmentState, in db: Database) throws {
        try db.execute(sql: "UPDATE attachments SET state = ? WHERE id = ?", arguments: [state.rawValue, id])
    }

    /// The server listed the file's chunks as deleted: a file stored here becomes `loose` (its
    /// bytes kept: no server can make a device drop a file an item still names); a download in
    /// progress or a removal here is simply over.
    package static func markAttachmentGoneFromServer(_ id: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM attachment_chunks WHERE attachment = ?", arguments: [id])
        guard let stored = try storedAttachment(id, in: db) else { return }
        switch stored.state {
        case .stable: try setAttachmentState(id, .loose, in: db)
        case .remove: try forgetAttachment(id, in: db)
        case .upload, .loose: break
        }
    }

    /// Forgets a file entirely: its chunks are gone from the server (deleted here or by another device).
    package static func forgetAttachment(_ id: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM attachments WHERE id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM attachment_chunks WHERE attachment = ?", arguments: [id])
    }

    /// Keeps a downloaded file whole (its chunks gathered by the sync): its sealed bytes as they
    /// came, and no chunk of it left over from a download an earlier version made in parts.
    package static func saveDownloadedFile(_ id: String, sealed: Data, chunks: Int, in db: Database) throws {
        try saveAttachment(StoredAttachment(id: id, sealed: sealed, chunks: chunks, state: .stable), in: db)
        try db.execute(sql: "DELETE FROM attachment_chunks WHERE attachment = ?", arguments: [id])
    }

    private static func storedAttachment(_ row: Row) -> StoredAttachment {
        StoredAttachment(id: row["id"], sealed: row["sealed"], chunks: row["chunks"],
                         state: AttachmentState(rawValue: row["state"]) ?? .stable)
    }
}

extension VaultDatabase {
    private static let attachmentMarker = "attachments"

    /// The ETag of the last complete fetch of the attachment chunks (in `markers`, so a full
    /// re-sync forgets it too).
    package static func attachmentMarker(in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT etag FROM markers WHERE collection = ?", arguments: [attachmentMarker])
    }

    package static func setAttachmentMarker(_ etag: String, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO markers (collection, etag) VALUES (?, ?)", arguments: [attachmentMarker, etag])
    }
}
