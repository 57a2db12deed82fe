import CofferCore
import Foundation

/// Files' chunks on the server (architecture §4, attachments): collection `attachments`, one
/// record per chunk, id `FILE-INDEX`, `{attachment, index, count, data}` with `data` the base64
/// of a slice of the sealed file. The bytes stay sealed everywhere: this step runs locked.
///
/// Order in a sync: `upload` before the items are pushed (a device that sees an item naming a file
/// finds its chunks there); `fetch` after the items are fetched, only when items arrived since the
/// last complete listing (`MetaKey.attachmentsToFetch`, set in the items' fetch transaction) or
/// nothing was ever listed (an idle sync asks nothing more);
/// `removeRemoved` after the push. Each chunk is written once (`If-None-Match: *`): an upload cut
/// short resumes where it stopped; a download keeps its chunks until the file is whole.
enum AttachmentStep {
    static let collection = "attachments"

    /// Sends every chunk of the files added here; returns how many files went up.
    static func upload(_ context: SyncContext) async throws -> Int {
        let waiting = try context.database.read { try VaultDatabase.attachmentIDs(in: .upload, in: $0) }
        for id in waiting {
            // One file's bytes in memory at a time.
            guard let file = try context.database.read({ try VaultDatabase.storedAttachment(id, in: $0) }),
                  file.state == .upload, let sealed = file.sealed else { continue }
            for index in 0..<file.chunks {
                let start = index * AttachmentSealing.chunkSize
                let slice = sealed[sealed.startIndex + start..<sealed.startIndex + min(sealed.count, start + AttachmentSealing.chunkSize)]
                // nil: already there, from an attempt whose answer was lost.
                _ = try await context.client.putRecord(in: collection, id: chunkID(file.id, index), data: [
                    "attachment": file.id, "index": String(index), "count": String(file.chunks),
                    "data": slice.base64EncodedString(),
                ], onlyIfNew: true)
                CrashPoint.reach("sync.attachments.upload.chunk")
            }
            try context.database.write { try VaultDatabase.markAttachmentUploaded(file.id, in: $0) }
            context.logger.info("attachments: sent \(file.id) in \(file.chunks) chunk(s)")
        }
        return waiting.count
    }

    /// Deletes the chunks of the files removed here; returns how many files were removed.
    static func removeRemoved(_ context: SyncContext) async throws -> Int {
        let removed = try context.database.read { try VaultDatabase.attachmentIDs(in: .remove, in: $0) }
        for id in removed {
            guard let file = try context.database.read({ try VaultDatabase.storedAttachment(id, in: $0) }) else { continue }
            for index in 0..<file.chunks {
                try await context.client.deleteRecord(in: collection, id: chunkID(file.id, index))
            }
            try context.database.write { try VaultDatabase.forgetAttachment(file.id, in: $0) }
        }
        return removed.count
    }

    /// Lists the chunks changed since the last complete listing (without their data), downloads
    /// the chunks of files this device lacks, forgets files whose chunks were deleted. The marker
    /// moves only when every listed file is whole here: a download cut short is listed again.
    static func fetch(_ context: SyncContext) async throws -> Int {
        let database = context.database
        let marker = try database.read { try VaultDatabase.attachmentMarker(in: $0) }
        // Set by the items' fetch, in its transaction, when items arrived (they may name files).
        let owed = try database.meta(.attachmentsToFetch)
        guard marker == nil || owed != nil else { return 0 }

        guard case .changes(let records, let etag) = try await context.client.listChanges(
            named: collection, since: marker, pageSize: nil, fields: ["attachment", "index", "count", "deleted"])
        else {
            try database.write { try VaultDatabase.setMeta(.attachmentsToFetch, nil, in: $0) }
            return 0
        }
        // An answer with nothing and no new marker is no listing (a 404 the client reads as an
        // empty collection): the files stay owed, and the next sync asks again.
        if records.isEmpty, etag == (marker ?? "0") { return 0 }
        let listing = try AttachmentListing(records)
        let known = try database.read { try VaultDatabase.attachmentIDs(in: $0) }
        for id in listing.removed { try database.write { try VaultDatabase.markAttachmentGoneFromServer(id, in: $0) } }
        var downloaded = 0
        for (id, count) in listing.files.sorted(by: { $0.key < $1.key }) where !known.contains(id) {
            // A file is at most 16 MiB: its chunks are gathered here and stored in one transaction,
            // so no half file is ever visible, and a cut download starts again at the next sync
            // (a transaction per chunk, then reassembling them, cost 40 % of the download).
            var sealed = Data()
            sealed.reserveCapacity(count * AttachmentSealing.chunkSize)
            for index in 0..<count {
                sealed.append(try await downloadChunk(id, index: index, count: count, context))
                CrashPoint.reach("sync.attachments.download.chunk")
            }
            try database.write { try VaultDatabase.saveDownloadedFile(id, sealed: sealed, chunks: count, in: $0) }
            downloaded += 1
        }
        try database.write { db in
            try VaultDatabase.setAttachmentMarker(etag, in: db)
            try VaultDatabase.setMeta(.attachmentsToFetch, nil, in: db)
        }
        return downloaded
    }

    /// One chunk's bytes, checked against what the listing said of it.
    private static func downloadChunk(_ id: String, index: Int, count: Int, _ context: SyncContext) async throws -> Data {
        guard let record = try await context.client.record(in: collection, id: chunkID(id, index)) else {
            throw KintoError.network(message: "a chunk of a file was listed but is gone from the server; the next sync tries again")
        }
        guard record.fields["attachment"] == id, record.fields["index"] == String(index), record.fields["count"] == String(count),
              let text = record.fields["data"], text.utf8.count <= AttachmentListing.maximumChunkText,
              let data = Data(base64Encoded: text), data.count <= AttachmentSealing.chunkSize, !data.isEmpty
        else {
            throw RefusedRecord(description: "The server sent a file chunk that is not one Coffer wrote; nothing of it was kept.")
        }
        return data
    }

    static func chunkID(_ file: String, _ index: Int) -> String {
        "\(file)-\(String(format: "%04d", index))"
    }
}

/// The attachment chunks a listing names, checked: a hostile server gets one sentence, never a
/// file of a thousand chunks or a count that changes between chunks.
package struct AttachmentListing {
    /// Base64 of one chunk, at most.
    static let maximumChunkText = (AttachmentSealing.chunkSize + 2) / 3 * 4

    /// Each file listed with its chunk count.
    package var files: [String: Int] = [:]
    /// Files whose chunks were deleted.
    package var removed = Set<String>()

    package init(_ records: [Data]) throws {
        for data in records {
            guard let record = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let id = record["id"] as? String,
                  id.count <= 120, let dash = id.lastIndex(of: "-") else { throw Self.refused }
            let file = String(id[..<dash])
            guard RecordID.isValid(file) else { throw Self.refused }
            if record["deleted"] as? Bool == true {
                removed.insert(file)
                continue
            }
            guard record["attachment"] as? String == file, let countText = record["count"] as? String,
                  let count = Int(countText), (1...AttachmentSealing.maximumChunks).contains(count),
                  let indexText = record["index"] as? String, let index = Int(indexText), (0..<count).contains(index),
                  AttachmentStep.chunkID(file, index) == id, files[file].map({ $0 == count }) ?? true
            else { throw Self.refused }
            files[file] = count
        }
        // A file both listed and deleted: deleted wins (its other chunks go too).
        for file in removed { files[file] = nil }
    }

    static let refused = RefusedRecord(description: "The server listed file chunks that are not ones Coffer wrote; nothing of them was kept.")
}
