import CofferCore
import Foundation

/// The requests of the device registry and messages (architecture §9): whole small collections, read
/// with a conditional request and written one record at a time.
extension KintoClient {
    private func recordsPath(_ collection: DeviceCollectionName) -> String {
        "/buckets/\(bucket)/collections/\(collection.rawValue)/records"
    }

    /// The collection's live records matching `filter` (field = value), or `.notModified` when the
    /// collection did not change since `etag`: an idle poll is one 304. A filtered listing carries
    /// the whole collection's ETag, so a change for another device answers 200 too.
    public func listRecords(_ collection: DeviceCollectionName, filter: [String: String] = [:],
                            etag: String?) async throws -> KintoChanges {
        if let early = prefetched.removeValue(forKey: Self.prefetchKey(collection, filter, etag)) { return try await early.value }
        return try await requestListing(collection, filter: filter, etag: etag)
    }

    /// Starts `listRecords` now, on its own task; the next such call with the same arguments takes
    /// its answer or its error, as `prefetchChanges` does for the synced collections.
    public func prefetchRecords(_ collection: DeviceCollectionName, filter: [String: String] = [:], etag: String?) {
        prefetched[Self.prefetchKey(collection, filter, etag)] = Task {
            try await self.requestListing(collection, filter: filter, etag: etag)
        }
    }

    private static func prefetchKey(_ collection: DeviceCollectionName, _ filter: [String: String], _ etag: String?) -> String {
        let query = filter.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        return "\(collection.rawValue)?\(query) since \(etag ?? "the start")"
    }

    private func requestListing(_ collection: DeviceCollectionName, filter: [String: String],
                                etag: String?) async throws -> KintoChanges {
        let query = filter.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        var headers: [String: String] = [:]
        if let etag { headers["If-None-Match"] = "\"\(etag)\"" }
        let response = try await perform("GET", Self.endpoint(server, recordsPath(collection), query: query), headers: headers)
        switch response.status {
        case 304:
            return .notModified
        case 200:
            guard let tag = response.headers["ETag"] else {
                throw KintoError.network(message: "the listing of \(collection.rawValue) has no ETag")
            }
            let records = try Self.listedRecords(response.body).map(\.data)
            return .changes(records: records, etag: tag.trimmingCharacters(in: CharacterSet(charactersIn: "W/\" ")))
        default:
            throw Self.unexpected(response, doing: "listing \(collection.rawValue)")
        }
    }

    /// Writes a record whatever the server holds (a device's own record has one writer).
    /// Returns the server's timestamp of it.
    public func putRecord(_ collection: DeviceCollectionName, id: String, record: Data) async throws -> Int64 {
        let body = try KintoJSON.data(["data": try KintoJSON.object(record, what: "record")])
        let response = try await perform("PUT", Self.endpoint(server, "\(recordsPath(collection))/\(id)"), body: body)
        guard [200, 201].contains(response.status),
              let data = try KintoJSON.object(response.body, what: "written record")["data"] as? [String: Any],
              let lastModified = KintoJSON.int64(data["last_modified"]) else {
            throw Self.unexpected(response, doing: "writing a \(collection.rawValue) record")
        }
        return lastModified
    }

    /// Creates a record once (`If-None-Match: *`): true when created now, false when the id
    /// already exists (an earlier attempt whose answer was lost got through).
    public func createRecord(_ collection: DeviceCollectionName, id: String, record: Data) async throws -> Bool {
        let body = try KintoJSON.data(["data": try KintoJSON.object(record, what: "record")])
        let response = try await perform("PUT", Self.endpoint(server, "\(recordsPath(collection))/\(id)"),
                                         headers: ["If-None-Match": "*"], body: body)
        switch response.status {
        case 200, 201: return true
        case 412: return false
        default: throw Self.unexpected(response, doing: "sending a \(collection.rawValue) record")
        }
    }

    /// Deletes a record; one already gone counts as deleted.
    public func deleteRecord(_ collection: DeviceCollectionName, id: String) async throws {
        let response = try await perform("DELETE", Self.endpoint(server, "\(recordsPath(collection))/\(id)"))
        guard [200, 404].contains(response.status) else {
            throw Self.unexpected(response, doing: "deleting a \(collection.rawValue) record")
        }
    }

    /// Changes this account's password (accounts plugin); the old one stops working at once.
    public func changeAccountPassword(user: String, to password: String) async throws {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        guard let name = user.addingPercentEncoding(withAllowedCharacters: allowed) else {
            throw KintoError.network(message: "the account name cannot be sent")
        }
        let body = try KintoJSON.data(["data": ["password": password]])
        let response = try await perform("PATCH", Self.endpoint(server, "/accounts/\(name)"), body: body)
        guard response.status == 200 else { throw Self.unexpected(response, doing: "changing the account password") }
    }
}
