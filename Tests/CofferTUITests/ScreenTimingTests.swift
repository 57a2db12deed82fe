import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// The runtime tells `ScreenOptions.timing` of frames, keys and the unlock: the moments
/// `make bench` times (the executable's `BenchTrace` writes them to a file).
final class ScreenTimingTests: XCTestCase {
    /// An observer that records what it is told, in order.
    final class Recorder: ScreenTimingObserver, @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [String] = []

        var events: [String] { lock.withLock { recorded } }
        func keyRead() { record("key") }
        func unlockKeysReady() { record("keys ready") }
        func frameDrawn(locked: Bool) { record(locked ? "locked frame" : "frame") }
        private func record(_ event: String) { lock.withLock { recorded.append(event) } }
    }

    @MainActor
    func testTheObserverSeesFramesKeysAndTheUnlock() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-timing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("vault.db").path
        let created = try Vault.create(at: path, passphrase: SecureBuffer(copying: Array("pass phrase".utf8)),
                                       kdf: .fresh(memory: KDFParameters.minimumMemory, iterations: 3))
        await created.lock()
        let vault = try Vault.open(at: path)
        let recorder = Recorder()
        let screen = MemoryScreen()
        let state = ScreenState(vaultPath: path, summary: VaultSummary(try vault.database.status()),
                                settings: Fixtures.settings, now: Date())
        let runtime = Runtime(state: state, vault: vault, screen: screen,
                              services: ScreenServices(runSync: { _, _ in SyncReport() }, clipboard: .terminalOnly),
                              options: ScreenOptions(timing: recorder))
        runtime.dispatch(.started)
        screen.pendingInput = "pass phrase".map { .key(.character($0)) } + [.key(.enter)]
        let deadline = Date().addingTimeInterval(10)
        while !recorder.events.contains("frame") {
            guard Date() < deadline else { return XCTFail("no unlocked frame: \(recorder.events)") }
            runtime.turn(waitingAtMost: 0)
            try await Task.sleep(nanoseconds: 5_000_000)
        }

        let events = recorder.events
        XCTAssertEqual(events.first, "locked frame")
        XCTAssertEqual(events.filter { $0 == "key" }.count, 12, "each key of the passphrase and Enter")
        let ready = try XCTUnwrap(events.firstIndex(of: "keys ready"))
        XCTAssertEqual(events.firstIndex(of: "frame").map { $0 > ready }, true, "the unlocked frame follows the keys")
    }
}
