import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// The locked screen is drawn from the sync facts before anything is counted (counting a freshly
/// imported 100,000-item vault takes longer than the rest of the start); the counts follow.
extension RuntimeTests {
    @MainActor
    func testTheFirstFrameComesBeforeTheCountsWhichFollowOnTheirOwn() async throws {
        let (created, path) = try makeVault()
        for title in ["Bank", "Mail", "Shop"] {
            try await created.add(Item(title: title, entry: Entry(username: "alice", password: "pw"), created: Timestamp.now()))
        }
        await created.lock()
        let vault = try Vault.open(at: path)
        let facts = try vault.database.statusWithoutCounts()
        XCTAssertEqual([facts.items, facts.pending, facts.conflicts, facts.unreviewed], [0, 0, 0, 0], "nothing counted")

        let state = ScreenState(vaultPath: path, summary: VaultSummary(facts, isCounted: false),
                                settings: ScreenSettings(timeZone: Fixtures.utc), now: Date())
        let screen = MemoryScreen()
        let runtime = Runtime(state: state, vault: vault, screen: screen,
                              services: ScreenServices(runSync: { _, _ in SyncReport() }), options: ScreenOptions())
        runtime.turn(waitingAtMost: 0)
        XCTAssertTrue(screen.frame.text.contains("counting…"), screen.frame.text)
        XCTAssertFalse(screen.frame.text.contains("0 pending"), "no count shown before it is read")

        try await turn(runtime) { runtime.state.summary.isCounted }
        runtime.turn(waitingAtMost: 0)
        XCTAssertEqual(runtime.state.summary.items, 3)
        XCTAssertEqual(runtime.state.summary.pending, 3, "three items; the new keystore is not an item")
        XCTAssertFalse(screen.frame.text.contains("counting…"), screen.frame.text)
        XCTAssertTrue(screen.frame.text.contains("3 not yet on the server"), screen.frame.text)
        XCTAssertTrue(screen.frame.text.contains("3 pending"), screen.frame.text)
    }
}
