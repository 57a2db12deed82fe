import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

// The fault matrix's shared-vault steps (architecture §17, issue 31): the roster's listing at the
// start of a member's sync, an invitation's `add` and a revocation's `remove` written to the
// roster, each with one fault on one request. Ann made the vault (`SharedVaultFixture`), Bob
// joined it; each has their own account. Whatever the fault, the roster on the server still
// verifies from entry 0, a sync that failed changed nothing, and doing it again without the
// fault completes.
extension SyncFaultTests {
    /// Argon2id is remembered per input within the cell (`Argon2idMemo`): the copies of one
    /// vault open its keystore and their member secrets with the same keys and salts again and again.
    func runSharingScenario(_ kind: FaultProxy.Mode, at step: FaultStep, seed: Int) async throws {
        let memo = Argon2idMemo()
        try await PassphraseKeys.$stretching.withValue({ try memo.stretch($0, $1, $2, $3) }) {
            switch step {
            case .rosterFetch: try await runRosterFetchScenario(kind, seed: seed)
            case .rosterAppend: try await runRosterAppendScenario(kind, seed: seed)
            case .revocation: try await runRevocationScenario(kind, seed: seed)
            default: XCTFail("\(step.rawValue) is not a step of a shared vault")
            }
        }
    }

    /// What Bob's sync must report when `kind` hits the roster's listing.
    static func expectedRosterFetchError(_ kind: FaultProxy.Mode) -> SyncErrorName? {
        switch kind {
        // Refused on the bucket: said as a removal or a changed password would be.
        case .status401: return .syncAuth
        // Success with a Backoff header, and a listing has no sub-responses to turn into a 409.
        case .backoffHeader, .batch409: return nil
        // A listing answered 404 is empty (the client's rule), and a roster without entry 0 is
        // refused; so is a garbled or cut one.
        default: return .network
        }
    }

    /// What a roster write through `kind` comes to: nil when it goes through (Kinto's `ETag`
    /// carries the timestamp, which is all the write reads, so a garbled body costs nothing),
    /// else the name of the `KintoError` it throws; and whether the entry reached Kinto.
    static func expectedRosterWrite(_ kind: FaultProxy.Mode) -> (error: SyncErrorName?, lands: Bool) {
        switch kind {
        case .backoffHeader, .batch409, .garbledJSON: return (nil, true)
        case .status401: return (.syncAuth, false)
        // Forwarded, then the answer was lost (or came after the client gave up): written.
        case .resetAfter, .truncated, .delay: return (.network, true)
        default: return (.network, false)
        }
    }

    // MARK: - The roster's listing

    /// Both change the shared item and add items; Ann invites Cat, so Bob's copy is an entry behind;
    /// then Bob syncs into the fault. A failed sync leaves his items, pending changes and verified
    /// roster as they were; after it Ann edits again, and the next syncs converge.
    private func runRosterFetchScenario(_ kind: FaultProxy.Mode, seed: Int) async throws {
        let step = FaultStep.rosterFetch
        let scenario = "\(kind.rawValue) at the \(step.rawValue), seed \(seed)"
        let clock = TestClock()
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let bob = SharedVaultFixture.Member("Bob", credentials: try await server.makeAccount())
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
        await a.syncExpectingSuccess()
        try await vault.invite(bob, by: ann, server: server.url)
        let b = try await vault.join(bob, server: proxy.url)
        let shared = try await a.add("Shared (\(scenario))", username: "u0", password: "p0")
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()

        try await a.edit(shared.id) { $0.title = "Title from Ann (\(scenario))" }
        var fromA: [String: String] = [:]
        for index in 0...(seed % 3) { fromA[try await a.add("By Ann \(index) (\(scenario))", password: "pa\(index)").id] = "pa\(index)" }
        await a.syncExpectingSuccess()
        try await vault.invite(SharedVaultFixture.Member.neverSyncing("Cat"), by: ann, server: server.url)
        try await b.edit(shared.id) { $0.entry.username = "user from Bob" }
        var fromB: [String: String] = [:]
        for index in 0...((seed / 3) % 3) { fromB[try await b.add("By Bob \(index) (\(scenario))", password: "pb\(index)").id] = "pb\(index)" }
        let itemsBefore = try await b.items()
        let rosterBefore = try b.vault.database.meta(.rosterEntries)
        let pendingBefore = try b.status().allPendingChanges
        let (served, _) = try await vault.roster(as: ann, server: server.url)
        XCTAssertEqual(try b.vault.verifiedRoster().count, served.count - 1, "\(scenario): Bob's copy is an entry behind")

        let seconds = FaultMatrix.seconds(for: kind)
        b.use(server: proxy.url, credentials: bob.credentials, timeout: FaultMatrix.clientTimeout(for: kind))
        let logBefore = try await proxy.log().count
        try await proxy.setFault(kind, count: 1, match: step.match(), seconds: seconds)
        let report = await b.sync()
        let expected = Self.expectedRosterFetchError(kind)
        XCTAssertEqual(report.error, expected, "\(scenario): \(report.message ?? "no message")")
        if expected != nil {
            XCTAssertNotNil(report.message, "\(scenario): an error comes with a sentence")
            XCTAssertEqual(try b.status().lastError, expected?.rawValue, scenario)
        }
        try await assertOneFault(kind, at: step, after: logBefore, proxy: proxy, scenario: scenario)
        b.use(server: proxy.url, credentials: bob.credentials)
        if FaultMatrix.leavesDeadline(kind, at: step) {
            XCTAssertNotNil(report.backoffUntil, "\(scenario): the deadline is in the report")
            clock.advance(seconds + 1)
        }

        if expected == nil {
            XCTAssertEqual(try b.vault.verifiedRoster(), served, "\(scenario): the roster that came was kept")
        } else {
            // The sync stopped before anything was fetched or sent: nothing changed on Bob's copy.
            let itemsAfter = try await b.items()
            XCTAssertEqual(itemsAfter, itemsBefore, "\(scenario): Bob's items")
            XCTAssertEqual(try b.vault.database.meta(.rosterEntries), rosterBefore, "\(scenario): Bob's verified roster")
            XCTAssertEqual(try b.status().allPendingChanges, pendingBefore, "\(scenario): Bob's pending changes")
        }

        // Ann edits meanwhile; the next syncs (no fault) converge with every edit in place.
        try await a.edit(shared.id) { $0.entry.notes = "notes from Ann, meanwhile" }
        await a.syncExpectingSuccess()
        let recovered = await b.sync()
        XCTAssertNil(recovered.error, "\(scenario): Bob's next sync: \(recovered.message ?? "")")
        for _ in 0..<2 {
            let fromAnn = await a.sync(), fromBob = await b.sync()
            XCTAssertNil(fromAnn.error, "\(scenario): Ann after recovery: \(fromAnn.message ?? "")")
            XCTAssertNil(fromBob.error, "\(scenario): Bob after recovery: \(fromBob.message ?? "")")
        }
        try await assertConverged([a, b])
        let final = try await b.items()
        XCTAssertEqual(final[shared.id]?.title, "Title from Ann (\(scenario))", scenario)
        XCTAssertEqual(final[shared.id]?.entry.username, "user from Bob", scenario)
        XCTAssertEqual(final[shared.id]?.entry.notes, "notes from Ann, meanwhile", scenario)
        for (id, password) in fromA.merging(fromB, uniquingKeysWith: { $1 }) {
            XCTAssertEqual(final[id]?.entry.password, password, scenario)
        }
        for copy in [a, b] {
            XCTAssertEqual(try copy.vault.verifiedRoster(), served, "\(scenario): \(copy.name)'s verified roster")
            XCTAssertEqual(try copy.status().allPendingChanges, 0, "\(scenario): \(copy.name)")
        }
    }

    // MARK: - An invitation's `add`

    /// Ann appends Bob's `add` through the fault (after `seed % 3` other invitations). If the write
    /// failed, Bob is invited again, and — as `share join` makes new keys each time — with new
    /// keys: when the lost write had landed, its entry stays (a member whose keys nobody holds,
    /// as after an inviter that died there: `ShareCommandTests`), and the new one goes after it.
    private func runRosterAppendScenario(_ kind: FaultProxy.Mode, seed: Int) async throws {
        let step = FaultStep.rosterAppend
        let scenario = "\(kind.rawValue) at the \(step.rawValue), seed \(seed)"
        let clock = TestClock()
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let bob = SharedVaultFixture.Member("Bob", credentials: try await server.makeAccount())
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
        a.use(server: proxy.url, credentials: ann.credentials)
        await a.syncExpectingSuccess()
        for index in 0..<(seed % 3) {
            try await vault.invite(SharedVaultFixture.Member.neverSyncing("Guest\(index)"), by: ann, server: server.url)
        }
        let (before, _) = try await vault.roster(as: ann, server: server.url)
        let entry = try await vault.nextEntry(.add(try bob.person()), by: ann, server: server.url)

        let seconds = FaultMatrix.seconds(for: kind)
        let client = vault.client(of: ann, server: proxy.url, timeout: FaultMatrix.clientTimeout(for: kind))
        let logBefore = try await proxy.log().count
        try await proxy.setFault(kind, count: 1, match: step.match(), seconds: seconds)
        let (expected, lands) = Self.expectedRosterWrite(kind)
        var failed = false
        do {
            let appended = try await SharedRoster.append(entry, with: client)
            XCTAssertNil(expected, "\(scenario): the write went through")
            XCTAssertTrue(appended, "\(scenario): the position was free")
        } catch {
            failed = true
            XCTAssertEqual((error as? KintoError).map(SyncEngine.name(of:)), expected, "\(scenario): \(error)")
        }
        try await assertOneFault(kind, at: step, after: logBefore, proxy: proxy, scenario: scenario)
        if FaultMatrix.leavesDeadline(kind, at: step) { clock.advance(seconds + 1) }

        // The roster on the server verifies from entry 0 and holds the entry exactly when the write reached Kinto.
        let (after, afterState) = try await vault.roster(as: ann, server: server.url)
        XCTAssertEqual(after, lands ? before + [entry] : before, "\(scenario): the roster on the server")
        let joining: SharedVaultFixture.Member
        if failed {
            if lands {
                // The same change again meets the write that landed: the record is written once
                // (412), and the roster lists Bob already. Bob, invited again, comes with new keys.
                let again = try await SharedRoster.append(entry, with: vault.client(of: ann, server: proxy.url))
                XCTAssertFalse(again, "\(scenario): a roster record is written once")
                XCTAssertThrowsError(try RosterChain.entry(appending: .add(try bob.person()), to: afterState, by: ann.keys,
                                                           epochKey: vault.epochKey), scenario) { error in
                    XCTAssertEqual((error as? RosterProblem)?.reason, .alreadyMember(bob.keys.id), "\(scenario): \(error)")
                }
            }
            joining = bob.withNewKeys()
            try await vault.invite(joining, by: ann, server: proxy.url)
        } else {
            // The invitation goes on as `ShareMember.add` does: the seal, then the group.
            joining = bob
            let inviter = vault.client(of: ann, server: proxy.url)
            try await SharedRoster.writeSeal(vault.epochKey, epoch: entry.epoch, to: try bob.person(), in: vault.vaultID, with: inviter)
            try await SharedRoster.admit(account: bob.credentials.user, with: inviter)
        }

        // Done: the roster verifies, lists Bob's account once more for each `add` that landed,
        // and the key sealed to the keys Bob holds opens, as his account reads the bucket.
        let (entries, state) = try await vault.roster(as: joining, server: proxy.url)
        XCTAssertEqual(state.members.values.filter { $0.person.account == bob.credentials.user }.count,
                       failed && lands ? 2 : 1, "\(scenario): \(state.members.values.map(\.person.name))")
        XCTAssertNotNil(state.members[joining.keys.id], scenario)
        let key = try await SharedRoster.openSeal(for: state, with: joining.keys, client: vault.client(of: joining, server: proxy.url),
                                                  vault: vault.name)
        XCTAssertEqual(key?.withUnsafeBytes { Data($0) }, vault.epochKey.withUnsafeBytes { Data($0) }, "\(scenario): the key sealed to Bob")
        await a.syncExpectingSuccess()
        XCTAssertEqual(try a.vault.verifiedRoster(), entries, "\(scenario): Ann's copy took the roster")
    }

    // MARK: - A revocation's `remove`

    /// Bob wrote an item; Ann revokes him through the fault (`raceGrace: 0`), and again without it
    /// when that threw. Then the revocation is whole: Bob out of the roster once, a key of the
    /// epoch after his removal sealed to Ann (which her copy takes at its next unlock), his
    /// account out of the group and every record rewritten (his sync is refused), nothing lost.
    private func runRevocationScenario(_ kind: FaultProxy.Mode, seed: Int) async throws {
        let step = FaultStep.revocation
        let scenario = "\(kind.rawValue) at the \(step.rawValue), seed \(seed)"
        let clock = TestClock()
        let ann = SharedVaultFixture.Member("Ann", credentials: credentials)
        let bob = SharedVaultFixture.Member("Bob", credentials: try await server.makeAccount())
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
        await a.syncExpectingSuccess()
        try await vault.invite(bob, by: ann, server: server.url)
        let b = try await vault.join(bob, server: server.url)
        var passwords: [String: String] = [:]
        for index in 0...(seed % 3) { passwords[try await b.add("By Bob \(index) (\(scenario))", password: "pb\(index)").id] = "pb\(index)" }
        await b.syncExpectingSuccess()
        passwords[try await a.add("By Ann (\(scenario))", password: "pa").id] = "pa"
        await a.syncExpectingSuccess()
        let decided = try a.vault.verifiedRoster()
        let secrets = try XCTUnwrap(try a.vault.memberSecrets(passphrase: secret(Device.passphrase)), scenario)

        let seconds = FaultMatrix.seconds(for: kind)
        let faulted = SharedRevocation(client: vault.client(of: ann, server: proxy.url, timeout: FaultMatrix.clientTimeout(for: kind)),
                                       vaultID: vault.vaultID, vault: vault.name, secrets: secrets, raceGrace: 0,
                                       itemsToRewrite: { [a] in try a.vault.itemIDs(signedByNoneOf: $0) })
        let logBefore = try await proxy.log().count
        try await proxy.setFault(kind, count: 1, match: step.match(), seconds: seconds)
        let (expected, lands) = Self.expectedRosterWrite(kind)
        var outcome: SharedRevocation.Outcome?
        do {
            outcome = try await faulted.remove(bob.keys.id, continuing: decided, decidedOn: decided)
            XCTAssertNil(expected, "\(scenario): the revocation went through")
        } catch {
            XCTAssertEqual((error as? KintoError).map(SyncEngine.name(of:)), expected, "\(scenario): \(error)")
        }
        try await assertOneFault(kind, at: step, after: logBefore, proxy: proxy, scenario: scenario)
        if FaultMatrix.leavesDeadline(kind, at: step) { clock.advance(seconds + 1) }

        // The roster on the server verifies from entry 0, continuing Ann's, with the removal
        // exactly when the write reached Kinto.
        let (served, servedState) = try await vault.roster(as: ann, server: server.url)
        _ = try SharedRoster.verify(served, vaultID: vault.vaultID, continuing: decided, vault: vault.name)
        XCTAssertEqual(servedState.members[bob.keys.id] == nil, lands, "\(scenario): Bob removed on the server")
        if outcome == nil {
            // Done again, without the fault, as `share revoke` run again does.
            let again = SharedRevocation(client: vault.client(of: ann, server: proxy.url), vaultID: vault.vaultID,
                                         vault: vault.name, secrets: secrets, raceGrace: 0,
                                         itemsToRewrite: { [a] in try a.vault.itemIDs(signedByNoneOf: $0) })
            do {
                outcome = try await again.remove(bob.keys.id, continuing: served, decidedOn: decided)
            } catch {
                return XCTFail("\(scenario): the revocation done again: \(error)")
            }
        }
        let done = try XCTUnwrap(outcome, scenario)
        XCTAssertFalse(done.raced, scenario)
        XCTAssertEqual(done.unrewritten, 0, scenario)
        try a.vault.database.setMeta(.rosterEntries, Vault.rosterMeta(done.entries))

        // Bob is out of the roster (removed once), a key of the epoch after it is sealed to Ann,
        // his account is out of the group and the permissions were rewritten after his removal.
        let annClient = vault.client(of: ann, server: server.url)
        let (entries, state) = try await vault.roster(as: ann, server: server.url)
        XCTAssertEqual(entries, done.entries, "\(scenario): the roster the revocation ended with")
        XCTAssertNil(state.members[bob.keys.id], scenario)
        let removals = entries.indices.filter { entries[$0].change == .remove(personID: bob.keys.id) }
        XCTAssertEqual(removals.count, 1, "\(scenario): removed once")
        XCTAssertGreaterThan(state.epoch, 1, scenario)
        let key = try await SharedRoster.openSeal(for: state, with: ann.keys, client: annClient, vault: vault.name)
        XCTAssertNotNil(key, "\(scenario): no key of epoch \(state.epoch) is sealed to Ann")
        let (principals, _) = try await annClient.members()
        XCTAssertEqual(principals, ["account:\(ann.credentials.user)"], scenario)
        if let removal = removals.last {
            let rewritten = try await SharedRoster.isRewritten(after: removal, with: annClient)
            XCTAssertTrue(rewritten, "\(scenario): the permissions after the removal")
        }

        let refused = await b.sync()
        XCTAssertEqual(refused.error, .syncAuth, "\(scenario): Bob's sync: \(refused.message ?? "")")
        // Ann's copy fetches the new key, takes it at its unlock and sends the keystore under it.
        await a.syncExpectingSuccess()
        await a.lock()
        try await a.unlock()
        XCTAssertEqual(try a.vault.database.meta(.shareEpoch), String(state.epoch), "\(scenario): Ann's copy took the new key")
        await a.syncExpectingSuccess()
        let onA = try await a.items()
        for (id, password) in passwords { XCTAssertEqual(onA[id]?.entry.password, password, scenario) }
        XCTAssertEqual(try a.status().allPendingChanges, 0, scenario)
    }

    /// The fault hit one request, the step's own; then the proxy passes again (a delayed request
    /// has landed by then).
    private func assertOneFault(_ kind: FaultProxy.Mode, at step: FaultStep, after logBefore: Int, proxy: FaultProxy,
                                scenario: String) async throws {
        if kind == .delay {
            // The proxy forwards the held request after its delay: let it land before going on.
            try await Task.sleep(nanoseconds: UInt64((FaultMatrix.seconds(for: kind) + 0.5) * 1_000_000_000))
        }
        let faulted = try await proxy.log().dropFirst(logBefore).filter { $0.fault == kind.rawValue }
        XCTAssertEqual(faulted.count, 1, "\(scenario): the fault hit one request")
        if let hit = faulted.first {
            XCTAssertTrue(hit.path.contains(step.match()), "\(scenario): the fault hit \(hit.method) \(hit.path)")
        }
        try await proxy.setFault(.pass)
    }
}
