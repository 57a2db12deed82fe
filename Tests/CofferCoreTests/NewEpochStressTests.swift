import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// Issue 42, finding 4, at speed: a screen unlocking, a command beside it unlocking and adding,
/// and a sync that brings a new epoch (begun by this person's rotation or by another member's)
/// run at once on one file, each after a random delay, so the steps meet in every order the
/// scheduler finds. `COFFER_UNLOCK_RACE_RUNS` repetitions (5 in `make test`, 50 in
/// `make reliability`); `COFFER_UNLOCK_RACE_SEED` replays one.
final class NewEpochStressTests: XCTestCase {
    func testUnlocksCommandsAndANewEpochNeverLockEachOtherOut() async throws {
        let environment = ProcessInfo.processInfo.environment
        let runs = environment["COFFER_UNLOCK_RACE_RUNS"].flatMap(Int.init) ?? 5
        let seed = environment["COFFER_UNLOCK_RACE_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        var random = SeededGenerator(seed: seed)
        for run in 0..<runs {
            let delays = (screen: Int.random(in: 0...40, using: &random), command: Int.random(in: 0...40, using: &random),
                          sync: Int.random(in: 0...40, using: &random), rotation: Bool.random(using: &random))
            let context = "seed \(seed) run \(run) delays \(delays)"
            do {
                try await race(delays: delays, context: context)
            } catch {
                XCTFail("\(context): \(error)")
            }
        }
        print("unlock races: \(runs) runs, seed \(seed)")
    }

    private func race(delays: (screen: Int, command: Int, sync: Int, rotation: Bool), context: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-epoch-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var fixture = try await SharedCopyFixture(directory: directory)
        let screen = try fixture.open(), command = try fixture.open()
        let author = delays.rotation ? fixture.alice : RosterPeople.bob
        let syncFixture = fixture
        func passphrase() -> SecureBuffer { SharedCopyFixture.buffer(SharedCopyFixture.passphrase) }
        func pause(_ milliseconds: Int) async throws { try await Task.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000) }

        async let screenTitles: [String] = {
            try await pause(delays.screen)
            try await step("the screen's unlock") { try await screen.unlock(passphrase: passphrase()) }
            return try await step("the screen's listing") { try await screen.listItems().compactMap(\.item?.title) }
        }()
        async let commandAdded: Void = {
            try await pause(delays.command)
            try await step("the command's unlock") { try await command.unlock(passphrase: passphrase()) }
            try await step("the command's add") { try await command.add(Item(title: "Gate", created: .now())) }
        }()
        // The screen's sync: the new epoch's key stored, then the engine's step on the screen's vault.
        async let synced: (UInt64, Vault.NewEpochOutcome?) = {
            var brought = syncFixture
            try await pause(delays.sync)
            let epoch = try brought.bringEpoch(by: author)
            let outcome = await screen.takeNewerEpoch()
            return (epoch, outcome)
        }()
        let shown = try await screenTitles
        try await commandAdded
        let (epoch, outcome) = try await synced

        XCTAssertTrue(shown.contains("Door") && shown.contains("Bike"), "\(context): the screen showed \(shown)")
        if case .locked? = outcome { XCTFail("\(context): the sync locked the screen's vault") }
        let isLocked = await screen.isLocked
        XCTAssertFalse(isLocked, context)

        // Whoever takes the epoch last, the file ends whole: every item opens with the key ring a
        // new unlock finds, the epoch's key is held, and this person's rotation gave the vault
        // new keys (one generation: the sessions that met it took it, none made its own).
        let later = try fixture.open()
        try await later.unlock(passphrase: passphrase())
        let titles = try await later.listItems().compactMap(\.item?.title).sorted()
        XCTAssertEqual(titles, ["Bike", "Door", "Gate"], context)
        XCTAssertEqual(try later.database.meta(.shareEpoch), String(epoch), context)
        let session = try await later.unlockedSession()
        if delays.rotation {
            XCTAssertEqual(UInt64(session.ring.generation), epoch, context)
            for vault in [screen, command] {
                _ = try await vault.listItems()  // a session the other left stale opens again here
                let held = try await vault.unlockedSession()
                XCTAssertTrue(held.vaultKey.isEqual(to: session.vaultKey), "\(context): a session holds another generation's vault key")
            }
        }
        for vault in [screen, command, later] { await vault.lock() }
    }
}

/// Names the step of a race that threw.
private func step<Result>(_ name: String, _ work: () async throws -> Result) async throws -> Result {
    do {
        return try await work()
    } catch {
        throw StepFailed(step: name, error: error)
    }
}

private struct StepFailed: Error, CustomStringConvertible {
    let step: String
    let error: any Error
    var description: String { "\(step) threw \(error)" }
}
