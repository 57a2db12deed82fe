import CofferTestSupport
import Foundation
import XCTest

/// What the dynamic loader maps when coffer starts. libcurl and the ~30 libraries it needs are
/// loaded on the first request only (Sources/CCurl/shim.h): a command that never syncs
/// (`--version`, `search`, the locked screen) must not pay for them.
final class StartupLinkTests: XCTestCase {
    func testTheBinaryDoesNotLinkLibcurlOrFoundationNetworking() throws {
        let binary = try CofferBinary.require()
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["-d", binary]
        let output = Pipe()
        readelf.standardOutput = output
        try readelf.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        let needed = text.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        XCTAssertFalse(needed.isEmpty, "readelf listed no libraries: \(text)")
        for line in needed {
            XCTAssertFalse(line.contains("libcurl"), "linked at start: \(line)")
            XCTAssertFalse(line.contains("FoundationNetworking"), "linked at start: \(line)")
        }
    }
}
