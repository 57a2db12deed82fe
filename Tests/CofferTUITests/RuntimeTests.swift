import CofferCore
import CofferSync
import CofferSystem
import Foundation
import XCTest
@testable import CofferTUI

/// The input loop with a real vault, a memory screen and fake sync and clipboard: slow work runs
/// off the loop while keys keep being answered.
final class RuntimeTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-runtime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A gate the fake sync waits on, opened by the test.
    final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var isOpen = false
        private(set) var syncs = 0

        func open() { lock.withLock { isOpen = true } }
        func started() { lock.withLock { syncs += 1 } }
        var opened: Bool { lock.withLock { isOpen } }
    }

    /// A clipboard that records what it is told.
    final class FakeClipboard: @unchecked Sendable {
        private let lock = NSLock()
        private var content: String?
        private(set) var clears = 0

        var value: String? { lock.withLock { content } }
        func set(_ text: String?) { lock.withLock { content = text } }
        func clear() { lock.withLock { content = nil; clears += 1 } }

        var service: ClipboardService {
            ClipboardService(copy: { self.set($0) }, read: { self.value }, clear: { self.clear() })
        }
    }

    func makeVault() throws -> (Vault, String) {
        let path = directory.appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: SecureBuffer(copying: Array("pass phrase".utf8)),
                                     kdf: .fresh(memory: KDFParameters.minimumMemory, iterations: 3))
        return (vault, path)
    }

    /// Turns the loop until `condition` holds (background work needs real time to finish).
    @MainActor
    func turn(_ runtime: Runtime, until condition: () -> Bool, timeout: TimeInterval = 10,
              file: StaticString = #filePath, line: UInt = #line) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out", file: file, line: line) }
            runtime.turn(waitingAtMost: 0)
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    @MainActor
    func testUnlockSyncAndClipboardRunOffTheLoop() async throws {
        let (created, path) = try makeVault()
        try await created.add(Item(title: "Bank", entry: Entry(username: "alice", password: "s3cret"),
                                   created: Timestamp.now()))
        await created.lock()
        let vault = try Vault.open(at: path)
        // An account, so the scheduler syncs (the fake sync never reaches it).
        try SyncAccount(server: URL(string: "http://127.0.0.1:9")!, user: "alice", password: "pw").save(to: vault.database)
        let summary = VaultSummary(try vault.database.status())

        let gate = Gate()
        let clipboard = FakeClipboard()
        let services = ScreenServices(
            runSync: { _, progress in
                gate.started()
                progress(SyncProgress(step: .fetch, collection: "items", done: 1, total: 2))
                while !gate.opened { try? await Task.sleep(nanoseconds: 2_000_000) }
                return SyncReport()
            },
            clipboard: clipboard.service)
        let settings = ScreenSettings(autoLockSeconds: 300, clipboardSeconds: 0.3, timeZone: Fixtures.utc)
        let state = ScreenState(vaultPath: path, summary: summary, settings: settings, now: Date())
        let screen = MemoryScreen()
        let runtime = Runtime(state: state, vault: vault, screen: screen, services: services,
                              options: ScreenOptions(clipboardSeconds: 0.3))
        runtime.dispatch(.started)
        XCTAssertEqual(runtime.state.sync.running, .start)

        // Unlock: the KDF runs in the background while the loop answers F1.
        screen.pendingInput = "pass phrase".map { .key(.character($0)) } + [.key(.enter), .key(.function(1))]
        for _ in 0..<13 { runtime.turn(waitingAtMost: 0) }
        XCTAssertEqual(runtime.state.overlay, .help, "F1 answered while the keys are derived")
        try await turn(runtime) { !runtime.state.isLocked }
        XCTAssertEqual(runtime.state.items.map(\.displayTitle), ["Bank"])
        screen.pendingInput = [.key(.escape)]
        runtime.turn(waitingAtMost: 0)
        runtime.turn(waitingAtMost: 0)
        XCTAssertTrue(screen.frame.text.contains("Bank"), screen.frame.text)

        // The start sync is still running (progress shows); the unlock sync waits behind it.
        try await turn(runtime) { runtime.state.sync.progress != nil }
        XCTAssertTrue(screen.frame.text.contains("fetch"), screen.frame.text)
        gate.open()
        try await turn(runtime) { runtime.state.sync.running == nil }
        XCTAssertEqual(gate.syncs, 2, "the unlock during the start sync ran one more")

        // Copy: OSC 52 at once, the helper too; cleared after the delay as it still holds our value.
        screen.pendingInput = [.key(.character("c"))]
        runtime.turn(waitingAtMost: 0)
        XCTAssertEqual(screen.sent.last, OSC52.copy("s3cret"))
        try await turn(runtime) { clipboard.value == "s3cret" }
        try await turn(runtime) { clipboard.clears == 1 && screen.sent.last == OSC52.clear }

        // Copied again, then replaced by the user: not cleared.
        screen.pendingInput = [.key(.character("u"))]
        runtime.turn(waitingAtMost: 0)
        try await turn(runtime) { clipboard.value == "alice" }
        clipboard.set("something else")
        try await turn(runtime) { runtime.state.clipboard == nil }
        try await Task.sleep(nanoseconds: 100_000_000)
        runtime.turn(waitingAtMost: 0)
        XCTAssertEqual(clipboard.value, "something else")
        XCTAssertEqual(clipboard.clears, 1)

        // Lock: the vault drops its keys, the frame its items.
        screen.pendingInput = [.key(.character("L"))]
        runtime.turn(waitingAtMost: 0)
        runtime.turn(waitingAtMost: 0)
        XCTAssertFalse(screen.frame.text.contains("Bank"))
        var isLocked = false
        for _ in 0..<200 where !isLocked {
            try await Task.sleep(nanoseconds: 5_000_000)
            isLocked = await vault.isLocked
        }
        XCTAssertTrue(isLocked, "the vault dropped its keys")
    }

    @MainActor
    func testCreatingAVaultOnFirstRun() async throws {
        let path = directory.appendingPathComponent("new/vault.db").path
        let screen = MemoryScreen()
        let state = ScreenState(vaultPath: path, summary: nil, settings: Fixtures.settings, now: Date())
        let runtime = Runtime(state: state, vault: nil, screen: screen,
                              services: ScreenServices(runSync: { _, _ in SyncReport() }, clipboard: .terminalOnly),
                              options: ScreenOptions(kdf: .fresh(memory: KDFParameters.minimumMemory, iterations: 3)))
        screen.pendingInput = "abc".map { .key(.character($0)) } + [.key(.enter)]
            + "abc".map { .key(.character($0)) } + [.key(.enter)]
        try await turn(runtime) { runtime.state.page == .list }
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        screen.pendingInput = [.key(.character("n"))] + "Note".map { .key(.character($0)) } + [.key(.enter)]
        try await turn(runtime) {
            if case .detail = runtime.state.page { return true }
            return false
        }
        XCTAssertEqual(runtime.state.items.map(\.displayTitle), ["Note"])
        screen.pendingInput = [.key(.character("q"))]
        runtime.turn(waitingAtMost: 0)
        XCTAssertEqual(runtime.state.exitCode, 0)
    }
}
