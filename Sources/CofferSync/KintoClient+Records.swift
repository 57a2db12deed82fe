import Foundation

/// Single records and the account itself, for the rendezvous of an invitation: a handful of small
/// records in a throwaway account's default bucket, then nothing.
extension KintoClient {
    /// A record's string members (what the rendezvous writes), or nil when there is none (404).
    func record(in collection: String, id: String) async throws -> [String: String]? {
        let response = try await perform("GET", recordURL(collection, id))
        switch response.status {
        case 200:
            let object = try KintoJSON.object(response.body, what: "\(collection) record")
            guard let data = object["data"] as? [String: Any] else {
                throw KintoError.network(message: "the \(collection) record has no data")
            }
            return data.compactMapValues { $0 as? String }
        case 404:
            return nil
        default:
            throw Self.unexpected(response, doing: "reading a \(collection) record")
        }
    }

    /// Writes a record. With `onlyIfNew` a record already there is left alone and false comes
    /// back: the server's single-use claim (`If-None-Match: *`).
    func putRecord(in collection: String, id: String, data: [String: String], onlyIfNew: Bool) async throws -> Bool {
        let headers = onlyIfNew ? ["If-None-Match": "*"] : [:]
        let response = try await perform("PUT", recordURL(collection, id), headers: headers,
                                         body: try KintoJSON.data(["data": data]))
        switch response.status {
        case 200, 201: return true
        case 412 where onlyIfNew: return false
        default: throw Self.unexpected(response, doing: "writing a \(collection) record")
        }
    }

    /// Deletes everything the account wrote (its default bucket) and then the account: deleting
    /// only the account would leave the bucket for whoever takes the name next.
    func deleteAccountAndData(user: String) async throws {
        for path in ["/buckets/default", "/accounts/\(user)"] {
            let response = try await perform("DELETE", Self.endpoint(server, path))
            guard [200, 204, 404].contains(response.status) else {
                throw Self.unexpected(response, doing: "removing the rendezvous")
            }
        }
    }

    private func recordURL(_ collection: String, _ id: String) throws -> URL {
        try Self.endpoint(server, "/buckets/default/collections/\(collection)/records/\(id)")
    }
}
