import CofferTestSupport
import Foundation
import XCTest

/// `coffer copy` on a private X server with the real `xclip`: the value lands on the clipboard, the
/// command returns at once, and a detached helper clears it after the delay only if unchanged.
final class CopyCommandTests: XCTestCase {
    private var vault: TestVault?
    private var x: XvfbDisplay?

    override func setUpWithError() throws {
        x = try XvfbDisplay()
        let vault = try TestVault.make()
        self.vault = vault
        try vault.add("Forge", ["--username", "smith", "--password", "copy me \(UUID().uuidString.prefix(8))"])
    }

    override func tearDown() {
        x?.stop()
        vault?.destroy()
        super.tearDown()
    }

    private func copy(_ arguments: [String]) throws -> (CofferResult, TimeInterval) {
        let vault = try XCTUnwrap(vault)
        let display = try XCTUnwrap(x)
        let started = Date()
        let result = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "copy"] + arguments,
                                           home: vault.root, environment: display.environment)
        assertOK(result)
        XCTAssertEqual(result.out, "", "copy prints nothing: \(result.summary)")
        return (result, Date().timeIntervalSince(started))
    }

    /// Polls until the clipboard holds `expected` or `seconds` pass; returns what it held last.
    private func clipboard(becomes expected: String, within seconds: TimeInterval) throws -> String {
        let display = try XCTUnwrap(x)
        let deadline = Date().addingTimeInterval(seconds)
        var current = try display.clipboard()
        while current != expected, Date() < deadline {
            usleep(100_000)
            current = try display.clipboard()
        }
        return current
    }

    func testCopiesThePasswordAndClearsItAfterTheDelay() throws {
        let vault = try XCTUnwrap(vault)
        let password = try XCTUnwrap(try vault.show("forge", reveal: true)["password"] as? String)
        let (_, elapsed) = try copy(["forge", "--clipboard-seconds", "3"])
        XCTAssertLessThan(elapsed, 3, "copy waited for the clearing instead of returning at once")
        XCTAssertEqual(try XCTUnwrap(x).clipboard(), password)
        // Still there just before the delay ends, gone after.
        usleep(1_000_000)
        XCTAssertEqual(try XCTUnwrap(x).clipboard(), password, "cleared too early")
        XCTAssertEqual(try clipboard(becomes: "", within: 6), "", "the clipboard was not cleared")
    }

    func testAFieldIsCopiedAndAClipboardChangedMeanwhileIsLeftAlone() throws {
        let (_, _) = try copy(["forge", "--field", "username", "--clipboard-seconds", "2"])
        let display = try XCTUnwrap(x)
        XCTAssertEqual(try display.clipboard(), "smith")
        try display.setClipboard("someone else's text")
        usleep(4_000_000)
        XCTAssertEqual(try display.clipboard(), "someone else's text", "the helper cleared a clipboard that was no longer ours")
    }

    func testNamesAreResolvedAsEverywhere() throws {
        let vault = try XCTUnwrap(vault)
        let display = try XCTUnwrap(x)
        try vault.add("Forgery", ["--password", "other"])
        func copy(_ name: String) throws -> CofferResult {
            try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "copy", name,
                                   "--clipboard-seconds", "0"], home: vault.root, environment: display.environment)
        }
        let ambiguous = try copy("forg")
        assertExit(ambiguous, 6)
        XCTAssertEqual(ambiguous.err.split(separator: "\n").count, 3, ambiguous.summary)
        assertError(try copy("nowhere"), 4, mentions: ["nowhere"])
        assertOK(try copy("FORGERY"))
        XCTAssertEqual(try display.clipboard(), "other")
    }

    func testInATerminalTheCopyAlsoGoesOutAsOSC52() throws {
        let vault = try XCTUnwrap(vault)
        let binary = try CofferBinary.require()
        let password = try XCTUnwrap(try vault.show("forge", reveal: true)["password"] as? String)
        // tmux (set-clipboard on) keeps what OSC 52 sets in its paste buffer; no DISPLAY, so no xclip.
        let tmux = try Tmux(command: "env -u DISPLAY LANG=C.UTF-8 TERM=tmux-256color sh")
        try tmux.type("'\(binary)' --vault '\(vault.path)' --passphrase-file '\(vault.passphraseFile)' copy forge; echo copy-exit-$?")
        try tmux.send("Enter")
        let (found, screen) = tmux.wait(for: "copy-exit-0")
        XCTAssertTrue(found, screen)
        XCTAssertEqual(tmux.pasteBuffer, password)
    }

    func testWithoutAnyClipboardTheCommandSaysSo() throws {
        let vault = try XCTUnwrap(vault)
        // No DISPLAY, no terminal: nowhere to copy to.
        let result = try vault.run(["copy", "forge"])
        assertError(result, 1, mentions: ["clipboard"])
    }

    /// Through an unlocked agent: no passphrase source at all, the value still lands and is cleared.
    func testCopiesThroughTheAgentWithoutAPassphrase() throws {
        let vault = try XCTUnwrap(vault)
        let display = try XCTUnwrap(x)
        let password = try XCTUnwrap(try vault.show("forge", reveal: true)["password"] as? String)
        try vault.ok(["unlock", "--sync-every", "0"])
        defer { for pid in AgentProbe.processes(vault) { kill(pid, SIGKILL) } }
        let result = try CofferProcess.run(["--vault", vault.path, "copy", "forge", "--clipboard-seconds", "2"],
                                           home: vault.root, environment: display.environment)
        assertOK(result)
        XCTAssertEqual(try display.clipboard(), password)
        XCTAssertEqual(try clipboard(becomes: "", within: 6), "", "the clipboard was not cleared")
        XCTAssertEqual(AgentProbe.processes(vault).count, 1, "the agent served the copy and still runs")
    }
}
