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
}
