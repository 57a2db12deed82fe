import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// The picker through the runtime on real files: one unlock of the personal vault opens the
/// shared vault beside it without the passphrase (its keys kept, in locked memory), a vault of
/// another passphrase asks for its own, and locking wipes the kept keys: afterwards every vault asks.
@MainActor
final class VaultSwitchRuntimeTests: XCTestCase {
    nonisolated(unsafe) var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-vaults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ title: String) -> Item {
        Item(title: title, entry: Entry(username: "ann", password: "pw-\(title)"), created: Timestamp.now())
    }

    func start(on path: String) throws -> (Runtime, MemoryScreen) {
        let vault = try Vault.open(at: path)
        let state = ScreenState(vaultPath: path, summary: try VaultSummary(of: vault, isCounted: false),
                                settings: Fixtures.settings, now: Date())
        let screen = MemoryScreen()
        let runtime = Runtime(state: state, vault: vault, screen: screen,
                              services: ScreenServices(runSync: { _, _ in SyncReport() }), options: ScreenOptions())
        return (runtime, screen)
    }

    func turn(_ runtime: Runtime, _ screen: MemoryScreen, typing keys: [Key] = [], until condition: () -> Bool,
              file: StaticString = #filePath, line: UInt = #line) async throws {
        screen.pendingInput = keys.map { .key($0) }
        let deadline = Date().addingTimeInterval(15)
        while !condition() || !screen.pendingInput.isEmpty {
            guard Date() < deadline else { return XCTFail("timed out: \(screen.frame.text)", file: file, line: line) }
            runtime.turn(waitingAtMost: 0)
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    func typed(_ text: String) -> [Key] { text.map { .character($0) } + [.enter] }

    func row(_ screen: MemoryScreen, containing text: String) -> String {
        // Below the title bar, which names the vault on the screen too.
        screen.frame.text.split(separator: "\n").dropFirst().first { $0.contains(text) }.map(String.init) ?? ""
    }

    func testOneUnlockOpensTheSharedVaultAndLockingWipesTheKeys() async throws {
        let vaults = try await PersonsVaults.make(in: directory, personalItems: [item("Bank")],
                                                  familyItems: [item("Netflix"), item("Disney")])
        let (runtime, screen) = try start(on: vaults.personal)
        try await turn(runtime, screen, typing: typed(PersonsVaults.passphrase), until: { screen.frame.text.contains("Bank") })
        XCTAssertTrue(screen.frame.text.hasPrefix(" Coffer · vault.db · personal"), screen.frame.text)
        XCTAssertFalse(runtime.kept.isEmpty, "the unlock's keys are kept")

        try await turn(runtime, screen, typing: [.character("V")], until: { screen.frame.text.contains("opens without asking") })
        XCTAssertTrue(row(screen, containing: "vault.db · personal").contains("🔓 open"), screen.frame.text)
        XCTAssertTrue(row(screen, containing: "family · shared").contains(" 2 "), screen.frame.text)

        // Enter on family: no passphrase asked, its items at once.
        try await turn(runtime, screen, typing: [.character("j"), .enter], until: { screen.frame.text.contains("Netflix") })
        XCTAssertTrue(screen.frame.text.hasPrefix(" Coffer · family · shared"), screen.frame.text)
        XCTAssertFalse(runtime.state.isLocked)
        XCTAssertFalse(screen.frame.text.contains("Bank"), "the personal vault's items are gone")
        XCTAssertEqual(runtime.state.vaultPath, vaults.family)

        // And back: the personal vault opens without asking too.
        try await turn(runtime, screen, typing: [.character("V")], until: { screen.frame.text.contains("opens without asking") })
        try await turn(runtime, screen, typing: [.home, .enter], until: { screen.frame.text.contains("Bank") })
        XCTAssertTrue(screen.frame.text.hasPrefix(" Coffer · vault.db · personal"), screen.frame.text)

        // L locks every vault: the keys go, and the picker says each is locked.
        try await turn(runtime, screen, typing: [.character("L")], until: { runtime.state.isLocked })
        XCTAssertTrue(runtime.kept.isEmpty, "locking wiped the kept keys")
        try await turn(runtime, screen, typing: [.function(3)], until: { screen.frame.text.contains("family · shared") })
        XCTAssertFalse(screen.frame.text.contains("opens without asking"), screen.frame.text)
        XCTAssertTrue(row(screen, containing: "family · shared").contains("🔒 locked"), screen.frame.text)
        try await turn(runtime, screen, typing: [.character("j"), .enter], until: { screen.frame.text.contains("family · shared is locked") })
        XCTAssertTrue(runtime.state.isLocked, "no key was kept: its passphrase is asked")
        try await turn(runtime, screen, typing: typed(PersonsVaults.passphrase), until: { screen.frame.text.contains("Netflix") })
        XCTAssertFalse(runtime.kept.isEmpty, "the shared vault's unlock keeps the person's keys too")
        try await turn(runtime, screen, typing: [.character("q")], until: { runtime.state.exitCode != nil })
    }

    /// A shared vault sealed under another passphrase: the kept keys do not open it, its prompt asks.
    func testAVaultOfAnotherPassphraseAsksForIt() async throws {
        let vaults = try await PersonsVaults.make(in: directory, personalItems: [item("Bank")],
                                                  familyItems: [item("Netflix")], familyPassphrase: "battery staple")
        let (runtime, screen) = try start(on: vaults.personal)
        try await turn(runtime, screen, typing: typed(PersonsVaults.passphrase), until: { screen.frame.text.contains("Bank") })
        try await turn(runtime, screen, typing: [.character("V")], until: { screen.frame.text.contains("family · shared") })
        XCTAssertTrue(row(screen, containing: "family · shared").contains("🔒 locked"), screen.frame.text)
        try await turn(runtime, screen, typing: [.character("j"), .enter], until: { screen.frame.text.contains("family · shared is locked") })
        try await turn(runtime, screen, typing: typed(PersonsVaults.passphrase), until: { screen.frame.text.contains("Wrong passphrase") })
        try await turn(runtime, screen, typing: typed("battery staple"), until: { screen.frame.text.contains("Netflix") })
        try await turn(runtime, screen, typing: [.character("q")], until: { runtime.state.exitCode != nil })
    }
}
