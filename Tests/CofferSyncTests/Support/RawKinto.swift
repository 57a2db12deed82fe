import CofferSync
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Plain HTTP on the account's default bucket, for what no device would send: forged device
/// records, replayed and altered messages, and reading what the server holds.
struct RawKinto {
    let server: URL
    let credentials: KintoCredentials

    func records(_ collection: String) async throws -> [[String: Any]] {
        let data = try await send("GET", "buckets/default/collections/\(collection)/records")
        return try XCTUnwrap(try jsonObject(data)["data"] as? [[String: Any]])
    }

    /// The listing's raw text (for canary scans).
    func text(_ collection: String) async throws -> String {
        String(decoding: try await send("GET", "buckets/default/collections/\(collection)/records"), as: UTF8.self)
    }

    /// Writes `record` (its `last_modified` dropped) whatever the server holds.
    func put(_ collection: String, _ record: [String: Any]) async throws {
        var fields = record
        fields["last_modified"] = nil
        let id = try XCTUnwrap(fields["id"] as? String)
        _ = try await send("PUT", "buckets/default/collections/\(collection)/records/\(id)",
                           body: try JSONSerialization.data(withJSONObject: ["data": fields]))
    }

    private func send(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
        var request = URLRequest(url: server.appendingPathComponent(path))
        request.httpMethod = method
        let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
        request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        XCTAssertTrue((200..<300).contains(status), "\(method) \(path): HTTP \(status)")
        return data
    }
}
