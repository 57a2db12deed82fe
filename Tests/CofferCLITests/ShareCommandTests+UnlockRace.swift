import CofferCore
import CofferTestSupport
import Foundation
import XCTest

/// Issue 42, finding 4, with the real binary on the real Kinto: after Cat leaves, Ann's screen
/// unlocks (its rotation begins epoch 3, its syncs bring the key and the vault's new keys) while a command of Ann's unlocks
/// the same copy and adds an item, the command started up to 1.5 s before or after the passphrase
/// is typed. `COFFER_SCREEN_UNLOCK_RACE_RUNS` repetitions (1 in `make test`, 50 in `make
/// reliability`, ~25 s each), each with a fresh household; `COFFER_SCREEN_UNLOCK_RACE_SEED`
/// replays the offsets. Every wait is on what the screen, the file or the server shows.
extension ShareCommandTests {
    func testAScreenAndACommandUnlockingAfterSomeoneLeftNeverLockEachOtherOut() throws {
        let environment = ProcessInfo.processInfo.environment
        let runs = environment["COFFER_SCREEN_UNLOCK_RACE_RUNS"].flatMap(Int.init) ?? 1
        let seed = environment["COFFER_SCREEN_UNLOCK_RACE_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        var random = SeededGenerator(seed: seed)
        for run in 0..<runs {
            let offset = Double(Int.random(in: -1500...1500, using: &random)) / 1000
            try unlockRace(commandOffset: offset, context: "seed \(seed) run \(run) command at \(offset) s")
        }
        print("screen unlock races: \(runs) runs, seed \(seed)")
    }

    private func unlockRace(commandOffset: TimeInterval, context: String) throws {
        let (ann, bob, cat) = try household()
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        let (catsKeys, _) = try keys(of: cat)
        assertOK(try cat.inShared("home", ["share", "leave"]))

        let screen = try ScreenSession(vault: ann.sharedPath("home"), home: ann.vault.root)
        screen.expect("Passphrase:", timeout: 60)
        func startCommand() throws -> RunningCoffer {
            try RunningCoffer(["--vault", ann.sharedPath("home"), "--passphrase-file", ann.vault.passphraseFile,
                               "add", "--title", "Gate", "--password", "canary-gate"], home: ann.vault.root)
        }
        var command: RunningCoffer?
        if commandOffset < 0 {
            command = try startCommand()
            Thread.sleep(forTimeInterval: -commandOffset)
        }
        try screen.type(ann.vault.passphrase)
        try screen.press("Enter")
        if commandOffset >= 0 {
            Thread.sleep(forTimeInterval: commandOffset)
            command = try startCommand()
        }
        screen.expect("unlocked", timeout: 120)
        succeeded(try XCTUnwrap(command, context).finish(timeout: 120), context)

        // As `testAScreenUnlockAfterSomeoneLeftGivesTheVaultNewKeys`.
        try assertAnnRenewedTheKeys(after: cat, keys: catsKeys, in: bucket, ann: ann, context: context)
        screen.expect("Gate", timeout: 60)
        screen.expect("Door", timeout: 60)
        XCTAssertFalse(screen.screen.contains("(unreadable)") || screen.screen.contains("(waiting for its key)"),
                       "\(context)\n\(screen.screen)")
        try screen.press("q")
        screen.expect("EXIT=0", timeout: 60)

        // The command's item goes up with Ann's next sync if the screen's did not take it.
        succeeded(try ann.inShared("home", ["sync", "--unlock"]), context)
        XCTAssertEqual(try serverItems(bucket, as: ann).filter { !$0.isDeleted }.count, 3, context)
        succeeded(try bob.inShared("home", ["sync", "--unlock"]), context)
        succeeded(try bob.inShared("home", ["sync", "--unlock"]), context)
        XCTAssertEqual(try bob.titles(in: "home"), ["Door", "Cat's bike", "Gate"], context)
    }

    private func succeeded(_ result: CofferResult, _ context: String, line: UInt = #line) {
        XCTAssertEqual(result.status, 0, "\(context): \(result.summary)", line: line)
    }
}
