import CofferCore
import Foundation

/// Single records and the account itself, for the rendezvous of an invitation: a handful of small
/// records in a throwaway account's default bucket, then nothing.
extension KintoClient {
    /// A record's string members (what the rendezvous writes), or nil when there is none (404).
    func record(in collection: String, id: String) async throws -> StoredRecord? {
        let response = try await perform("GET", recordURL(collection, id))
        switch response.status {
        case 200:
            let object = try KintoJSON.object(response.body, what: "\(collection) record")
            guard let data = object["data"] as? [String: Any], let lastModified = KintoJSON.int64(data["last_modified"]) else {
                throw KintoError.network(message: "the \(collection) record has no data")
            }
            return StoredRecord(fields: data.compactMapValues { $0 as? String }, lastModified: lastModified)
        case 404:
            return nil
        default:
            throw Self.unexpected(response, doing: "reading a \(collection) record")
        }
    }

    /// A record's text fields as the server holds them, and the server's timestamp of that version.
    struct StoredRecord: Equatable, Sendable {
        var fields: [String: String]
        var lastModified: Int64
    }

    /// Writes a record and returns the server's timestamp of it. With `onlyIfNew` a record already
    /// there is left alone and nil comes back: the server's single-use claim (`If-None-Match: *`).
    func putRecord(in collection: String, id: String, data: [String: String], onlyIfNew: Bool) async throws -> Int64? {
        let headers = onlyIfNew ? ["If-None-Match": "*"] : [:]
        let response = try await perform("PUT", recordURL(collection, id), headers: headers,
                                         body: try KintoJSON.data(record: data))
        switch response.status {
        case 200, 201:
            // Kinto's ETag is the written record's timestamp: reading it spares parsing the record
            // the answer echoes (a file chunk's 700 KB, 33 times for a 16 MiB file).
            if let tag = response.headers["ETag"], let lastModified = Int64(Self.unquoted(tag)) { return lastModified }
            guard let written = try KintoJSON.object(response.body, what: "written record")["data"] as? [String: Any],
                  let lastModified = KintoJSON.int64(written["last_modified"]) else {
                throw Self.unexpected(response, doing: "writing a \(collection) record")
            }
            return lastModified
        // Kinto on PostgreSQL answers a create that raced another one for the same id with 409
        // ("Integrity constraint violated, please retry"), where the memory backend says 412:
        // either way the other writer took the id.
        case 412 where onlyIfNew, 409 where onlyIfNew: return nil
        default: throw Self.unexpected(response, doing: "writing a \(collection) record")
        }
    }

    /// Deletes everything the account wrote (its default bucket) and then the account: deleting
    /// only the account would leave the bucket for whoever takes the name next.
    func deleteAccountAndData(user: String, doing what: String = "removing the rendezvous") async throws {
        for path in ["/buckets/default", "/accounts/\(user)"] {
            let response = try await perform("DELETE", Self.endpoint(server, path))
            guard [200, 204, 404].contains(response.status) else {
                throw Self.unexpected(response, doing: what)
            }
        }
    }

    /// The keystore this client's bucket holds, or nil when it holds none (a vault not synced yet).
    public func keystore() async throws -> KeystoreRecord? {
        guard case .changes(let records, _) = try await fetchChanges(collection: .keystores, since: nil), let first = records.first,
              let keystore = try? JSONDecoder().decode(KeystoreRecord.self, from: first), !keystore.isDeleted else { return nil }
        return keystore
    }

    /// Deletes a record of any collection; one already gone counts as deleted.
    func deleteRecord(in collection: String, id: String) async throws {
        let response = try await perform("DELETE", recordURL(collection, id))
        guard [200, 404].contains(response.status) else {
            throw Self.unexpected(response, doing: "deleting a \(collection) record")
        }
    }

    private func recordURL(_ collection: String, _ id: String) throws -> URL {
        try Self.endpoint(server, "/buckets/\(bucket)/collections/\(collection)/records/\(id)")
    }
}
