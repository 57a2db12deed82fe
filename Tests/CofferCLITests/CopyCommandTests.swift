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
        // A field the item does not have: exit 2 naming the fields it has; the clipboard is untouched.
        let unknown = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "copy", "forge",
                                             "--field", "pin", "--clipboard-seconds", "0"],
                                            home: vault.root, environment: display.environment)
        assertError(unknown, 2, mentions: ["pin", "password", "username"])
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

    /// The copy and its clearing helper, traced by strace: no file is opened under TMPDIR (the helper
    /// reads the clipboard back through a pipe; it wrote it to a file there once), and no file
    /// opened for writing anywhere but the vault's own.
    func testNeitherTheCopyNorItsClearingWritesTheValueToAFile() throws {
        let vault = try XCTUnwrap(vault)
        let display = try XCTUnwrap(x)
        let binary = try CofferBinary.require()
        let temporary = vault.root.appendingPathComponent("tmp-watched")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let trace = vault.root.appendingPathComponent("copy.strace").path
        // strace follows xclip's fork too, which serves the selection until another copy takes it:
        // the test takes it once the clearing is seen, and strace ends with its last tracee.
        let strace = Process()
        strace.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        strace.arguments = [
            "-f", "-qq", "-e", "trace=openat,creat,rename,link", "-o", trace, "/usr/bin/env",
            "DISPLAY=\(display.environment["DISPLAY"] ?? "")", "TMPDIR=\(temporary.path)", "HOME=\(vault.root.path)",
            binary, "--vault", vault.path, "--passphrase-file", vault.passphraseFile, "copy", "forge", "--clipboard-seconds", "1",
        ]
        strace.standardOutput = FileHandle.nullDevice
        strace.standardError = FileHandle.nullDevice
        try strace.run()
        defer { if strace.isRunning { kill(strace.processIdentifier, SIGKILL) } }
        let password = try XCTUnwrap(try vault.show("forge", reveal: true)["password"] as? String)
        XCTAssertEqual(try clipboard(becomes: password, within: 10), password, "the copy did not arrive")
        XCTAssertEqual(try clipboard(becomes: "", within: 6), "", "the clipboard was not cleared")
        try display.setClipboard("taken by the test")
        let deadline = Date().addingTimeInterval(10)
        while strace.isRunning, Date() < deadline { usleep(50_000) }
        XCTAssertFalse(strace.isRunning, "a traced process still runs after the clipboard was taken")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(calls.contains { $0.contains("openat(") }, "strace saw no call: the trace is empty")
        let inTemporary = calls.filter { $0.contains(temporary.path) }
        XCTAssertEqual(inTemporary, [], "a file under TMPDIR was opened")
        let written = calls.filter { ($0.contains("O_WRONLY") || $0.contains("O_RDWR") || $0.contains("creat(")) && !$0.contains("= -1")
            && !$0.contains(vault.path) && !$0.contains("/dev/") && !$0.contains("/proc/") }
        XCTAssertEqual(written, [], "a file other than the vault was opened for writing")
    }
}
