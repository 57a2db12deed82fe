import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// A test on the real Kinto: a fresh account, a private directory, and the fault proxy a test may
/// start (stopped after it).
class KintoAccountTestCase: XCTestCase {
    var server: TestServer!
    var credentials: KintoCredentials!
    var directory: URL!
    var proxy: FaultProxy?

    override func setUp() async throws {
        server = try TestServer.require()
        credentials = try await server.makeAccount()
        directory = try temporaryDirectory(self)
    }

    override func tearDown() {
        proxy?.stop()
        proxy = nil
        super.tearDown()
    }

    /// Two devices of the account's vault, both synced, and raw access to the account (what a
    /// server, or anyone holding the account's password, can write).
    func pairOfDevices() async throws -> (a: Device, b: Device, raw: RawAccount) {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        return (a, b, RawAccount(server: server, credentials: credentials))
    }
}
