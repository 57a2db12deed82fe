import CofferCore
import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// The real Kinto the sync tests talk to: `COFFER_TEST_KINTO_URL` (…/v1), which
/// `Resources/scripts/with-kinto.sh` (and so `make test`) sets.
///
/// Without it a test fails: no server test ever passes by skipping. Each test makes its own account, so tests never see each other's
/// records and can share one server with other test runs (never `__flush__` it).
struct TestServer: Sendable {
    /// The API root, ending in `/v1`.
    let url: URL

    /// The server; without one configured the test fails (it never passes by skipping).
    static func require(file: StaticString = #filePath, line: UInt = #line) throws -> TestServer {
        TestServer(url: try TestKinto.url(file: file, line: line))
    }

    /// `http://host:port` of the server, without the API path.
    var origin: URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.path = ""
        components.query = nil
        return components.url ?? url
    }

    /// Creates a fresh account with a random name and password.
    func makeAccount() async throws -> KintoCredentials {
        let credentials = KintoCredentials(user: "test-\(UUID().uuidString.lowercased())",
                                           password: "pw-\(UUID().uuidString)")
        try await KintoClient.createAccount(server: url, user: credentials.user, password: credentials.password)
        return credentials
    }

    /// A client on a fresh account. `server` replaces the URL (e.g. a `FaultProxy`'s).
    func makeClient(server: URL? = nil, timeout: TimeInterval = 15,
                    now: @escaping @Sendable () -> Date = { Date() }) async throws -> KintoClient {
        let credentials = try await makeAccount()
        return KintoClient(server: server ?? url, credentials: credentials, timeout: timeout, now: now)
    }
}

/// A record's JSON object as a dictionary, for assertions.
func jsonObject(_ data: Data, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: data, options: [])
    return try XCTUnwrap(object as? [String: Any], "not a JSON object", file: file, line: line)
}

/// `{"v": value}` and friends: a small record body.
func recordJSON(_ fields: [String: Any]) throws -> Data {
    try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
}

/// `last_modified` of a record.
func lastModified(_ data: Data, file: StaticString = #filePath, line: UInt = #line) throws -> Int64 {
    let value = try jsonObject(data, file: file, line: line)["last_modified"]
    if let number = value as? Int { return Int64(number) }
    if let number = value as? NSNumber { return number.int64Value }
    XCTFail("no last_modified in \(String(decoding: data, as: UTF8.self))", file: file, line: line)
    return -1
}

/// The accepted record of a write result, or a failure.
func acceptedRecord(_ result: KintoWriteResult, file: StaticString = #filePath, line: UInt = #line) throws -> Data {
    guard case .accepted(let record, _) = result else {
        XCTFail("expected accepted, got \(result)", file: file, line: line)
        throw UnexpectedResult()
    }
    return record
}

struct UnexpectedResult: Error {}

/// Runs `body` and returns the `KintoError` it throws, failing if it throws nothing or something else.
func kintoError<T>(_ body: () async throws -> T, file: StaticString = #filePath, line: UInt = #line) async -> KintoError? {
    do {
        let value = try await body()
        XCTFail("expected a KintoError, got \(value)", file: file, line: line)
    } catch let error as KintoError {
        return error
    } catch {
        XCTFail("expected a KintoError, got \(error)", file: file, line: line)
    }
    return nil
}

/// A loopback port with nothing listening on it.
func closedPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.EBADF) }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw POSIXError(.EBADF) }
    return Int(UInt16(bigEndian: address.sin_port))
}
