import Foundation
import XCTest

/// Issue 30's files on the screen, with the real binary: `coffer attach` beside the screen that
/// shows the item, then `w` saves the file from the screen.
final class ScreenFilesBesideCommandsTests: XCTestCase {
    /// The file a command attaches shows on the detail within seconds; `w` with a typed path
    /// writes the same bytes (same SHA-256 as the source and as `coffer attachments` says), mode
    /// 0600; a second `w` to the same path asks before writing over it, and `n` leaves it alone.
    func testAFileAttachedByACommandShowsAndSavesFromTheScreen() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let id = try vault.add("Passport scan")
        let screen = try ScreenSession(vault: vault.path, home: vault.root)
        try screen.unlock(passphrase: vault.passphrase)
        screen.expect("Passport scan")
        try screen.press("Enter")
        screen.expect("Username")
        XCTAssertFalse(screen.screen.contains("scan.pdf"))

        let source = vault.root.appendingPathComponent("scan.pdf")
        let bytes = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try bytes.write(to: source)
        try vault.ok(["attach", id, source.path])
        screen.expect("scan.pdf  150.0 kB", timeout: 5)

        // Username, password, tags, notes, then the file.
        for _ in 0..<4 { try screen.press("j") }
        screen.expect("▸ Files      scan.pdf")
        let target = vault.root.appendingPathComponent("saved copy.pdf")
        try save(on: screen, to: target)
        screen.expect("Saved “scan.pdf” (150.0 kB)")

        let written = try Data(contentsOf: target)
        XCTAssertEqual(try sha256(of: target), try sha256(of: source))
        let listed = try JSONSerialization.jsonObject(with: try vault.ok(["attachments", id, "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(listed?.first?["sha256"] as? String, try sha256(of: target))
        XCTAssertEqual(written.count, bytes.count)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600, String(mode, radix: 8))

        // Again to the same path: asked, and no leaves the file as it is.
        try Data("mine".utf8).write(to: target)
        try save(on: screen, to: target)
        screen.expect("exists. Write over it?")
        try screen.press("n")
        screen.expectGone("Write over it?")
        XCTAssertEqual(try Data(contentsOf: target), Data("mine".utf8))
    }

    /// `w`, then the path typed over the one offered, then ↵.
    private func save(on screen: ScreenSession, to target: URL) throws {
        try screen.press("w")
        screen.expect("Save “scan.pdf” to")
        try screen.press("C-u")
        try screen.type(target.path)
        try screen.press("Enter")
    }

    private func sha256(of url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }
}
