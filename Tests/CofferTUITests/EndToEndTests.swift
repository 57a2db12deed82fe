import CofferCore
import Foundation
import CofferTestSupport
import XCTest

/// The real `coffer` binary in tmux: what a user sees, keys as a user types them.
///
/// The binary is `$COFFER_BINARY`, else the `coffer` built next to this test bundle. These tests
/// fail (they do not skip) when it does not open the screen with no command.
final class EndToEndTests: XCTestCase {
    struct TmuxMissing: Error {}

    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["COFFER_BINARY"], !path.isEmpty { return path }
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("coffer"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("coffer"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("coffer"),
        ]
        return (candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]).path
    }

    /// Starts `coffer --vault PATH` (no command) in tmux; the shell prints its exit code after.
    func start(vault: String, environment: String = "LANG=C.UTF-8 TERM=tmux-256color") throws -> Tmux {
        guard Tmux.isInstalled else {
            XCTFail("tmux is needed for the end-to-end tests (make deps installs it)")
            throw TmuxMissing()
        }
        // NO_COLOR only when a test sets it (swift test may export it to its children).
        let command = "env -u NO_COLOR XDG_CONFIG_HOME=/nonexistent \(environment) '\(Self.binary)' --vault '\(vault)'; "
            + "echo \"EXIT=$?\"; sleep 60"
        return try Tmux(command: command)
    }

    /// Fails with the pane's contents when `text` does not show; true when it does.
    @discardableResult
    func expect(_ tmux: Tmux, _ text: String, timeout: TimeInterval = 10, file: StaticString = #filePath,
                line: UInt = #line) -> Bool {
        let (found, screen) = tmux.wait(for: text, timeout: timeout)
        if !found { XCTFail("“\(text)” did not appear; the screen shows:\n\(screen)", file: file, line: line) }
        return found
    }

    /// The first check of every test: no command opens the screen.
    func expectScreen(_ tmux: Tmux, showing text: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        XCTAssertTrue(Tmux.isInstalled, "tmux is needed for the end-to-end tests (make deps installs it)")
        let (found, screen) = tmux.wait(for: text, timeout: 10)
        if !found {
            XCTFail("\(Self.binary) with no command did not open the screen (is CofferScreen.run wired into the "
                    + "executable?). The terminal shows:\n\(screen)", file: file, line: line)
        }
        return found
    }

    func makeVault(items: [Item]) throws -> String {
        let path = directory.appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: SecureBuffer(copying: Array("correct horse".utf8)),
                                     kdf: .fresh(memory: KDFParameters.minimumMemory, iterations: 3))
        let added = items
        let done = expectation(description: "items added")
        Task {
            try? await vault.addAll(added)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        return path
    }

    func testFirstRunCreatesAVaultAddsAnItemAndQuits() throws {
        let path = directory.appendingPathComponent("new/vault.db").path
        let tmux = try start(vault: path)
        guard expectScreen(tmux, showing: "Welcome to Coffer") else { return }
        try tmux.type("correct horse")
        // Two dictionary words: zxcvbn rates it very weak and says why (by kind, not by text).
        expect(tmux, "very weak")
        expect(tmux, "Contains common words")
        try tmux.send("Enter")
        try tmux.type("correct horse")
        try tmux.send("Enter")
        // Calibrating and deriving the keys takes a moment; the list follows.
        expect(tmux, "The vault is empty", timeout: 30)

        try tmux.send("n")
        expect(tmux, "New item · Login")
        try tmux.type("東京 Wiki")
        try tmux.send("Tab")
        try tmux.type("alice")
        try tmux.send("Tab")
        try tmux.type("hunter2")
        try tmux.send("Enter")
        expect(tmux, "Saved “東京 Wiki”")
        XCTAssertTrue(tmux.screen.contains("••••••••"), "the password is masked")
        XCTAssertFalse(tmux.screen.contains("hunter2"))
        try tmux.send("r")
        expect(tmux, "hunter2")
        try tmux.send("Escape")
        expect(tmux, "1 item")
        XCTAssertTrue(tmux.screen.contains("東京 Wiki") && tmux.screen.contains("alice"))

        try tmux.send("u")
        expect(tmux, "📋")
        XCTAssertEqual(tmux.pasteBuffer, "alice", "OSC 52 put the username on the clipboard")

        try tmux.send("q")
        expect(tmux, "EXIT=0")
        XCTAssertFalse(tmux.screen.contains("Coffer ·"), "the terminal is restored")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
    }

    func testLockedVaultUnlocksAfterAWrongPassphraseThenLocks() throws {
        let item = Item(title: "Bank", tags: ["finance"], entry: Entry(username: "alice", password: "s3cret"),
                        created: Timestamp.now())
        let path = try makeVault(items: [item])
        let tmux = try start(vault: path)
        guard expectScreen(tmux, showing: "is locked") else { return }
        XCTAssertTrue(tmux.screen.contains("🔒"))
        try tmux.type("wrong")
        try tmux.send("Enter")
        expect(tmux, "Wrong passphrase")
        try tmux.type("correct horse")
        try tmux.send("Enter")
        expect(tmux, "Bank")
        expect(tmux, "🔓")
        try tmux.send("/")
        try tmux.type("fin")
        expect(tmux, "1 of 1")
        try tmux.send("Escape", "Enter")
        expect(tmux, "(r reveals)")
        try tmux.send("L")
        expect(tmux, "is locked")
        XCTAssertFalse(tmux.screen.contains("Bank"), "locking removes the items from the screen")
        try tmux.send("Escape")
        expect(tmux, "EXIT=0")
    }

    func testSignalsAndResizeLeaveTheTerminalUsable() throws {
        let path = try makeVault(items: [])
        let tmux = try start(vault: path)
        guard expectScreen(tmux, showing: "is locked") else { return }
        try tmux.resize(width: 60, height: 15)
        // The status bar, the bottom row, is what tmux drops when the pane shrinks: it is back once
        // the screen has drawn at the new size (the old text above it may show until then).
        expect(tmux, "never synced")
        expect(tmux, "Passphrase")
        let lines = tmux.screen.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(lines.contains { $0.contains("🔒") && $0.contains("│") }, "the status bar follows the new size:\n\(tmux.screen)")
        guard let pid = tmux.programPID else { return XCTFail("no program pid") }
        kill(pid, SIGTERM)
        expect(tmux, "EXIT=143")
        XCTAssertFalse(tmux.screen.contains("Passphrase:"), "the screen was closed")
    }

    func testNoColorDropsColoursButKeepsTheWords() throws {
        let path = try makeVault(items: [])
        for noColor in [false, true] {
            let tmux = try start(vault: path, environment: "LANG=C.UTF-8 TERM=tmux-256color" + (noColor ? " NO_COLOR=1" : ""))
            guard expectScreen(tmux, showing: "is locked") else { return }
            try tmux.type("wrong")
            try tmux.send("Enter")
            expect(tmux, "Wrong passphrase")
            // The error is red (SGR 31) unless NO_COLOR is set; its ✗ and words show either way.
            let styled = tmux.styledScreen
            let hasColour = styled.contains("\u{1B}[31m") || styled.contains(";31m") || styled.contains("[31;")
            XCTAssertEqual(hasColour, !noColor, "NO_COLOR=\(noColor):\n\(styled)")
            XCTAssertTrue(styled.contains("✗ Wrong passphrase"))
            try tmux.send("Escape")
            expect(tmux, "EXIT=0")
        }
    }

    func testAnUnknownTerminalTypeIsOneClearSentence() throws {
        let path = try makeVault(items: [])
        let tmux = try start(vault: path, environment: "LANG=C.UTF-8 TERM=no-such-terminal")
        let (found, screen) = tmux.wait(for: "EXIT=", timeout: 10)
        XCTAssertTrue(found, screen)
        XCTAssertTrue(screen.contains("EXIT=1"), screen)
        XCTAssertTrue(screen.contains("\"no-such-terminal\" (TERM) is unknown"),
                      "coffer with no command should say the TERM is unknown (is CofferScreen.run wired in?):\n\(screen)")
    }
}
