import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// A shared vault on the screen (issue 31): the title bar names it, and the Members page (`M`,
/// F2 locked) lists its members from the roster stored in a real vault file, locked or unlocked;
/// a hostile member's name is shown escaped. A personal vault has no Members page.
final class MembersPageTests: XCTestCase {
    let now = FakeClock.start
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-members-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    static let passphrase = "pass phrase"
    static let kdf = KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: 3)
    /// A name with an OSC 52 (ESC … BEL) and a right-to-left override: shown as escapes, never sent raw.
    static let hostileName = "Mal\u{1B}]52;c;eA==\u{07}\u{202E}"

    /// Ann creates "family", adds Bob, who adds the hostile name: three members, the roster three entries.
    struct Roster {
        let vaultID = SharedVaultID.random()
        let epochKey = SecureBuffer.random(count: EpochCommitment.keyLength)
        let ann = PersonKeys()
        let bob = PersonKeys()
        let mallory = PersonKeys()
        var entries: [RosterEntry] = []

        init() throws {
            entries = [try RosterChain.creation(of: vaultID, name: "Ann", account: "ann", by: ann, epochKey: epochKey)]
            try append(.add(try bob.person(name: "Bob", account: "bob.k")), by: ann)
            try append(.add(try mallory.person(name: MembersPageTests.hostileName, account: "mallory")), by: bob)
        }

        mutating func append(_ change: RosterChange, by keys: PersonKeys) throws {
            let state = try RosterChain.verify(entries: entries, vaultID: vaultID).get()
            entries.append(try RosterChain.entry(appending: change, to: state, by: keys, epochKey: epochKey))
        }
    }

    /// A shared vault file as `share create` leaves it: the keystore under the epoch key, the
    /// member's secrets sealed under the person's passphrase, the name, the person and the roster.
    func makeSharedVault(_ roster: Roster, as person: PersonKeys, name: String = "family") throws -> (Vault, String) {
        let path = directory.appendingPathComponent("\(name).db").path
        let keys = try PassphraseKeys(passphrase: SecureBuffer(copying: Array(Self.passphrase.utf8)), parameters: Self.kdf)
        let secrets = MemberSecrets(epoch: 1, epochKey: roster.epochKey, person: person)
        let vault = try Vault.create(at: path, passphrase: roster.epochKey, kdf: Self.kdf)
        try vault.database.setMeta(.shareVault, roster.vaultID.bucket)
        try vault.database.setMeta(.shareName, name)
        try vault.database.setMeta(.sharePerson, person.id)
        try vault.database.setMeta(.shareMember, try secrets.sealed(under: keys, kdf: Self.kdf, vaultID: roster.vaultID))
        try vault.database.setMeta(.rosterEntries, Vault.rosterMeta(roster.entries))
        return (vault, path)
    }

    /// The locked screen of Bob's copy, as the screen starts on it.
    func lockedSharedState() throws -> (ScreenState, Roster) {
        let roster = try Roster()
        let (vault, path) = try makeSharedVault(roster, as: roster.bob)
        var summary = try VaultSummary(of: vault)
        summary.lastSync = Fixtures.summary.lastSync
        summary.account = "bob.k"
        return (ScreenState(vaultPath: path, summary: summary, settings: Fixtures.settings, now: now), roster)
    }

    // MARK: Reading the vault

    func testTheSummaryReadsTheVerifiedRosterFromTheVaultFile() throws {
        let (state, roster) = try lockedSharedState()
        let share = try XCTUnwrap(state.summary.share)
        XCTAssertEqual(share.name, "family")
        XCTAssertNil(share.problem)
        XCTAssertEqual(share.entries, 3)
        XCTAssertEqual(share.epoch, 1)
        XCTAssertEqual(share.members.map(\.id), [roster.ann.id, roster.bob.id, roster.mallory.id], "in the order they joined")
        XCTAssertEqual(share.members.map(\.isYou), [false, true, false])
        XCTAssertEqual(share.members.map(\.addedByName), ["Ann", "Ann", "Bob"])
        XCTAssertEqual(share.members.map(\.addedAt), [0, 1, 2])
        XCTAssertTrue(share.members[0].createdTheVault)
        XCTAssertEqual(share.members[2].name, Self.hostileName, "kept as the roster holds it; escaped when shown")
        XCTAssertEqual(state.vaultTitle, "family · shared")
    }

    /// A member who added someone and left is still named by the entry that added them.
    func testTheAdderIsNamedAfterTheyLeft() throws {
        var roster = try Roster()
        try roster.append(.remove(personID: roster.bob.id), by: roster.bob)
        let share = SharedVaultSummary(name: "family", vaultID: roster.vaultID, personID: roster.ann.id, entries: roster.entries)
        XCTAssertEqual(share.members.map(\.id), [roster.ann.id, roster.mallory.id])
        XCTAssertEqual(share.members.last?.addedByName, "Bob")
        XCTAssertEqual(share.epoch, 2)
    }

    /// A stored roster that does not verify (here: moved from another vault) lists nobody and says why.
    func testARosterThatDoesNotVerifyIsShownAsAProblem() throws {
        let roster = try Roster()
        let share = SharedVaultSummary(name: "family", vaultID: SharedVaultID.random(), personID: roster.ann.id,
                                       entries: roster.entries)
        XCTAssertEqual(share.members, [])
        XCTAssertTrue(share.problem?.hasPrefix("The roster this device keeps does not verify") == true, "\(share.problem ?? "nil")")
        var state = Fixtures.unlocked()
        state.summary.share = share
        _ = Update.apply(.key(.character("M")), to: &state, now: now)
        let text = Render.frame(state, size: .standard, now: now).text
        XCTAssertTrue(text.contains("The roster this device keeps does not verify"), text)
        XCTAssertEqual(KeyBindings.binding(for: .character("i"), in: .members)?.disabledReason(state),
                       "You are not a member of this vault's roster: you cannot invite anyone.")
    }

    func testAPersonalVaultFileHasNoShare() throws {
        let path = directory.appendingPathComponent("vault.db").path
        let vault = try Vault.create(at: path, passphrase: SecureBuffer(copying: Array(Self.passphrase.utf8)), kdf: Self.kdf)
        XCTAssertNil(try SharedVaultSummary.read(from: vault))
        XCTAssertNil(try VaultSummary(of: vault, isCounted: false).share)
    }

    // MARK: The title bar

    func testTheTitleBarNamesTheSharedVaultLockedAndUnlocked() throws {
        var (state, _) = try lockedSharedState()
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "shared-locked")
        state.page = .list
        state.items = Fixtures.items
        state.list.selectedID = state.visibleItems.first?.id
        let frame = Render.frame(state, size: .standard, now: now)
        XCTAssertTrue(frame.text.hasPrefix(" Coffer · family · shared "), frame.text)
        XCTAssertTrue(frame.line(frame.size.height - 1).hasPrefix(" 🔓"), "the lock indicator stays: \(frame.text)")
    }

    /// A vault name someone else chose (an invitation's answer names the vault) is escaped in the title.
    func testAHostileVaultNameIsEscapedInTheTitle() throws {
        var state = Fixtures.unlocked()
        state.summary.share = SharedVaultSummary(name: "fam\u{1B}[2Jily\u{202E}", members: [])
        let title = Render.frame(state, size: .standard, now: now).text.split(separator: "\n")[0]
        XCTAssertTrue(title.hasPrefix(" Coffer · fam\\e[2Jily\\u202E · shared"), String(title))
    }

    // MARK: The Members page

    func testMembersPageUnlocked() throws {
        var (state, _) = try lockedSharedState()
        state.page = .list
        state.items = Fixtures.items
        XCTAssertEqual(Update.apply(.key(.character("M")), to: &state, now: now), [], "nothing to load: the roster came with the summary")
        XCTAssertEqual(state.page, .members(MembersState(isVaultLocked: false)))
        XCTAssertFalse(state.isLocked)
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "members")
        let text = Render.frame(state, size: .standard, now: now).text
        XCTAssertFalse(text.contains("\u{1B}") || text.contains("\u{202E}") || text.contains("\u{07}"), "a raw control reached the grid")
        XCTAssertTrue(text.contains("Mal\\e]52;c;eA==\\a\\u202E"), text)

        // i: the command to run; the exchange itself stays with the command line.
        XCTAssertEqual(Update.apply(.key(.character("i")), to: &state, now: now), [])
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "members-invite")
        XCTAssertEqual(KeyBindings.binding(for: .character("i"), in: .members)?.disabledReason(state), "The command is shown below.")

        _ = Update.apply(.key(.escape), to: &state, now: now)
        XCTAssertEqual(state.page, .list)
    }

    /// F2 on the locked page: the members without the passphrase; Esc goes back to the prompt.
    func testMembersPageLocked() throws {
        var (state, _) = try lockedSharedState()
        XCTAssertTrue(KeyBindings.hints(for: state).contains("F2 members"))
        _ = Update.apply(.key(.character("x")), to: &state, now: now)
        XCTAssertEqual(Update.apply(.key(.function(2)), to: &state, now: now), [])
        XCTAssertEqual(state.page, .members(MembersState(isVaultLocked: true)))
        XCTAssertTrue(state.isLocked, "the vault stays locked")
        XCTAssertEqual(KeyBindings.binding(for: .character("L"), in: .members)?.disabledReason(state), "The vault is locked.")
        XCTAssertEqual(Update.apply(.key(.character("L")), to: &state, now: now), [])
        XCTAssertEqual(Update.apply(.tick, to: &state, now: now.addingTimeInterval(3600)).contains(.lockVault), false)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "members-locked")
        _ = Update.apply(.key(.escape), to: &state, now: now)
        XCTAssertEqual(state.page, .locked(UnlockPrompt()), "back to the prompt; what was typed before is dropped")
        XCTAssertEqual(Update.apply(.key(.character("M")), to: &state, now: now), [], "M is typed into the passphrase")
        guard case .locked(let prompt) = state.page else { return XCTFail("left the prompt") }
        XCTAssertEqual(prompt.passphrase.revealed, "M")
    }

    /// Not while the keys are derived: the unlock's outcome must find the prompt it came from.
    func testF2WaitsForAnUnlockThatIsRunning() throws {
        var (state, _) = try lockedSharedState()
        state.busy = Busy(.unlocking, since: now)
        XCTAssertEqual(Update.apply(.key(.function(2)), to: &state, now: now), [])
        guard case .locked = state.page else { return XCTFail("opened the Members page during an unlock") }
    }

    func testAPersonalVaultHasNoMembersPage() {
        var state = Fixtures.unlocked()
        let reason = "This is a personal vault: it has no members. `coffer --vault NAME` opens a shared one."
        XCTAssertEqual(Update.apply(.key(.character("M")), to: &state, now: now), [])
        XCTAssertEqual(state.page, .list)
        XCTAssertEqual(state.notice?.text, reason)
        var locked = Fixtures.locked()
        XCTAssertFalse(KeyBindings.hints(for: locked).contains("F2 members"), "not offered")
        XCTAssertEqual(Update.apply(.key(.function(2)), to: &locked, now: now), [])
        XCTAssertEqual(locked.page, .locked(UnlockPrompt()))
        XCTAssertEqual(locked.notice?.text, reason)
        let title = Render.frame(state, size: .standard, now: now).text.split(separator: "\n")[0]
        XCTAssertTrue(title.hasPrefix(" Coffer · vault.db · personal "), "the title names the personal vault: \(title)")
    }

    /// The help overlay lists the key, from the key table.
    func testHelpListsTheMembersKey() throws {
        var (state, _) = try lockedSharedState()
        state.page = .list
        state.overlay = .help
        XCTAssertTrue(Render.frame(state, size: .standard, now: now).text.contains("M F2        Members of this vault"))
        state.page = .locked(UnlockPrompt())
        XCTAssertTrue(Render.frame(state, size: .standard, now: now).text.contains("F2          Members of this vault"))
        state.page = .members(MembersState(isVaultLocked: true))
        let help = Render.frame(state, size: .standard, now: now).text
        XCTAssertTrue(help.contains("Keys · Members") && help.contains("The command that invites a person"), help)
    }

    // MARK: Through the runtime

    /// The loop on a real shared vault: F2 locked, the person's passphrase unlocks it, `M`
    /// unlocked, and a roster a sync stored meanwhile (another process's commit) shows at once.
    @MainActor
    func testTheRuntimeShowsTheRosterLockedUnlockedAndAfterItChanges() async throws {
        var roster = try Roster()
        let (created, path) = try makeSharedVault(roster, as: roster.bob)
        await created.lock()
        let vault = try Vault.open(at: path)
        let state = ScreenState(vaultPath: path, summary: try VaultSummary(of: vault, isCounted: false),
                                settings: Fixtures.settings, now: Date())
        let screen = MemoryScreen()
        let runtime = Runtime(state: state, vault: vault, screen: screen,
                              services: ScreenServices(runSync: { _, _ in SyncReport() }), options: ScreenOptions())
        func turn(until condition: () -> Bool) async throws {
            let deadline = Date().addingTimeInterval(10)
            while !condition() {
                guard Date() < deadline else { return XCTFail("timed out: \(screen.frame.text)") }
                runtime.turn(waitingAtMost: 0)
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }
        screen.pendingInput = [.key(.function(2))]
        try await turn { screen.frame.text.contains("3 members") }
        XCTAssertTrue(screen.frame.text.hasPrefix(" Coffer · family · shared"), screen.frame.text)
        XCTAssertTrue(runtime.state.isLocked)

        screen.pendingInput = [.key(.escape)] + Self.passphrase.map { .key(.character($0)) } + [.key(.enter)]
        try await turn { !runtime.state.isLocked }
        screen.pendingInput = [.key(.character("M"))]
        try await turn { screen.frame.text.contains("3 members") }

        // A sync in another process verified and stored a longer roster: the page follows.
        try roster.append(.add(try PersonKeys().person(name: "Dee", account: "dee")), by: roster.ann)
        try Vault.open(at: path).database.setMeta(.rosterEntries, Vault.rosterMeta(roster.entries))
        try await turn { screen.frame.text.contains("4 members") }
        XCTAssertTrue(screen.frame.text.contains("Dee"), screen.frame.text)
        XCTAssertTrue(screen.frame.text.contains("4 entries, epoch 1"), screen.frame.text)
        screen.pendingInput = [.key(.character("q"))]
        try await turn { runtime.state.exitCode != nil }
    }
}
