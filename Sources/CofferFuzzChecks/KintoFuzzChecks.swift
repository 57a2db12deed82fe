import CofferCore
import CofferSync
import Foundation

/// The check the `FuzzKintoResponses` target runs on every input: the bytes as a `POST /batch`
/// answer and as a record listing, through the same parsers the client uses.
///
/// The parsers may refuse the bytes with `KintoError`; they must never crash, and whatever they
/// accept must keep the invariants below. A broken invariant throws `FuzzViolation`.
public enum KintoFuzzChecks {
    public static func responses(_ data: Data) throws {
        try batchAnswer(data)
        try listing(data)
    }

    /// `KintoBatchCoding.subResponses` and `result`: an answer holding another number of
    /// sub-responses is refused; each result agrees with its status; an accepted record is a JSON
    /// object with its `last_modified`; a backoff the client would obey can be stored and read back.
    static func batchAnswer(_ data: Data) throws {
        let parsed = (try? JSONSerialization.jsonObject(with: data, options: [])) as? [String: Any]
        let count = (parsed?["responses"] as? [Any])?.count ?? 0
        let responses: [KintoBatchCoding.SubResponse]
        do {
            responses = try KintoBatchCoding.subResponses(data, expected: count)
        } catch is KintoError {
            return
        } catch {
            throw FuzzViolation("subResponses threw \(error), not a KintoError")
        }
        guard responses.count == count else { throw FuzzViolation("\(responses.count) sub-responses for \(count)") }
        if (try? KintoBatchCoding.subResponses(data, expected: count + 1)) != nil {
            throw FuzzViolation("an answer with \(count) sub-responses was taken for \(count + 1)")
        }
        _ = KintoBatchCoding.isOutcomeUnknown(responses)
        for response in responses {
            for name in ["Backoff", "Retry-After"] {
                if let seconds = response.headers.seconds(name) { try backoffIsStorable(seconds, header: name) }
            }
            switch KintoBatchCoding.result(response) {
            case .accepted(let record, _):
                guard (200..<300).contains(response.status) else {
                    throw FuzzViolation("status \(response.status) gave an accepted write")
                }
                guard let object = try? KintoJSON.object(record, what: "record"),
                      KintoJSON.int64(object["last_modified"]) != nil else {
                    throw FuzzViolation("an accepted record is not an object with last_modified")
                }
                try headersOfServerRecord(record, id: object["id"] as? String, lastModified: object["last_modified"])
            case .preconditionFailed(let existing):
                guard response.status == 412 else { throw FuzzViolation("status \(response.status) gave a 412 result") }
                if let existing, (try? KintoJSON.object(existing, what: "record")) == nil {
                    throw FuzzViolation("a 412's existing record is not a JSON object")
                }
            case .failed(let status, _):
                guard status == response.status, !(200..<300).contains(status), status != 412 else {
                    throw FuzzViolation("status \(response.status) gave failed(\(status))")
                }
            case .unknown:
                guard (200..<300).contains(response.status) else {
                    throw FuzzViolation("status \(response.status) gave an unknown result")
                }
            }
        }
    }

    /// What the engine does with a backoff: stores `now + seconds` as ISO-8601 text in the vault
    /// (`SyncState.record`) and reads it back before the next sync.
    static func backoffIsStorable(_ seconds: TimeInterval, header: String) throws {
        guard seconds.isFinite, seconds >= 0 else { throw FuzzViolation("\(header): \(seconds) seconds") }
        let now = Timestamp(milliseconds: 1_767_225_600_000).date
        let until = Timestamp(now.addingTimeInterval(seconds))
        guard let stored = Timestamp(iso8601: until.iso8601), stored == until else {
            throw FuzzViolation("\(header): \(seconds) seconds give a deadline the vault cannot store (\(until.iso8601))")
        }
    }

    /// `KintoClient.listedRecords` and `newestPerID`: one entry per id, the newest, oldest first;
    /// each record the steps accept keeps its id and timestamp and has a stable canonical form.
    static func listing(_ data: Data) throws {
        let records: [KintoClient.ListedRecord]
        do {
            records = try KintoClient.listedRecords(data)
        } catch is KintoError {
            return
        } catch {
            throw FuzzViolation("listedRecords threw \(error), not a KintoError")
        }
        let newest = KintoClient.newestPerID(records)
        guard Set(newest.map(\.id)) == Set(records.map(\.id)), newest.count == Set(newest.map(\.id)).count else {
            throw FuzzViolation("newestPerID lost or repeated an id")
        }
        for (earlier, later) in zip(newest, newest.dropFirst())
        where (earlier.lastModified, earlier.id) >= (later.lastModified, later.id) {
            throw FuzzViolation("newestPerID is not oldest first")
        }
        for record in records {
            guard let kept = newest.first(where: { $0.id == record.id }), kept.lastModified >= record.lastModified else {
                throw FuzzViolation("newestPerID kept an older version of \(record.id)")
            }
        }
        for record in newest {
            try headersOfServerRecord(record.data, id: record.id, lastModified: record.lastModified)
        }
        try attachmentListing(newest.map(\.data))
    }

    /// The listing as attachment chunks (`AttachmentListing`): refused with its sentence, or every
    /// file named with a count in range, valid ids, and no file both listed and removed.
    static func attachmentListing(_ records: [Data]) throws {
        let listing: AttachmentListing
        do {
            listing = try AttachmentListing(records)
        } catch is RefusedRecord {
            return
        } catch {
            throw FuzzViolation("AttachmentListing threw \(error), not a refusal")
        }
        for (file, count) in listing.files {
            guard RecordID.isValid(file), (1...AttachmentSealing.maximumChunks).contains(count) else {
                throw FuzzViolation("a listed file \(file) with \(count) chunks was taken")
            }
            guard !listing.removed.contains(file) else { throw FuzzViolation("\(file) both listed and removed") }
        }
    }

    /// `IncomingRecord.decode` in both collections: what it accepts keeps the listing's id and
    /// timestamp, and its canonical text gives the same header again.
    static func headersOfServerRecord(_ data: Data, id: String?, lastModified: Any?) throws {
        let expectedTime = (lastModified as? Int64) ?? KintoJSON.int64(lastModified)
        for collection in CollectionName.allCases {
            guard let record = try? IncomingRecord.decode(data, in: collection) else { continue }
            let header = record.header
            guard header.id == id, header.lastModified == expectedTime else {
                throw FuzzViolation("\(collection.rawValue): header \(header.id)@\(header.lastModified) of a record listed as \(id ?? "-")@\(expectedTime ?? -1)")
            }
            let text: String = try mustSucceed { try record.value.canonicalText() } else: {
                "\(collection.rawValue): an accepted record has no canonical text: \($0)"
            }
            guard let again = try? IncomingRecord.decode(Data(text.utf8), in: collection).header, again == header else {
                throw FuzzViolation("\(collection.rawValue): the canonical text gives another header: \(text)")
            }
        }
    }
}
