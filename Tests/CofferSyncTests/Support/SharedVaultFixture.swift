import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// A shared vault made in process the way `share create`, `share invite` and `share join` make
/// one (architecture §17; `Sources/coffer/Commands/ShareCommands.swift` and `ShareMember.swift`,
/// which a test target cannot import): the bucket with its group and collections, the roster's
/// entry 0, the epoch key sealed to its creator and their copy, whose keystore that key opens;
/// then each person invited (the `add` entry, their seal, their account in the group) and
/// joining from the bucket's keystore.
///
/// Each person has their own Kinto account and their own copy, a `Device` syncing in the vault's
/// bucket with the server it was made with (the test's Kinto, or a `FaultProxy` in front of it).
/// Their member secrets are sealed under `Device.passphrase`, so `Device.unlock()` opens a copy.
/// No personal vault stands beside a copy: a refused account finds no other password to adopt.
struct SharedVaultFixture: Sendable {
    /// A person of the vault: their account and the keys their `share create` or `share join` made.
    struct Member: Sendable {
        let name: String
        let credentials: KintoCredentials
        let keys: PersonKeys

        init(_ name: String, credentials: KintoCredentials, keys: PersonKeys = PersonKeys()) {
            self.name = name
            self.credentials = credentials
            self.keys = keys
        }

        /// Their public identity, as the roster records it.
        func person() throws -> Person { try keys.person(name: name, account: credentials.user) }

        /// The same person joining again (`share join` makes new keys each time).
        func withNewKeys() -> Member { Member(name, credentials: credentials) }

        /// A person who is invited but never joins nor syncs: their account is only a name in
        /// the roster and the group (making a real one costs the server a password hash).
        static func neverSyncing(_ name: String) -> Member {
            Member(name, credentials: KintoCredentials(user: "\(name.lowercased())-\(UUID().uuidString.lowercased())", password: "unused"))
        }
    }

    let vaultID: SharedVaultID
    let name: String
    /// The key of the epoch the vault was made in (the keystore is wrapped under it), which an
    /// invitation seals to the new member.
    let epochKey: SecureBuffer
    let directory: URL
    let clock: TestClock
    /// The parameters (and salt) every person's secrets are sealed with, as their personal vault's
    /// would be: one for all, so that `Argon2idMemo` derives their passphrase's keys once.
    let personalKDF = Device.fastKDF

    /// `share create` by `creator`, whose copy talks to `server`: the copy is returned unlocked,
    /// before its first sync.
    static func create(_ name: String, by creator: Member, server: URL, in directory: URL,
                       clock: TestClock) async throws -> (fixture: SharedVaultFixture, copy: Device) {
        let vaultID = SharedVaultID.random()
        let epochKey = SecureBuffer.random(count: EpochCommitment.keyLength)
        let fixture = SharedVaultFixture(vaultID: vaultID, name: name, epochKey: epochKey, directory: directory, clock: clock)
        let entry = try RosterChain.creation(of: vaultID, name: creator.name, account: creator.credentials.user,
                                             by: creator.keys, epochKey: epochKey)
        let client = fixture.client(of: creator, server: server)
        try await client.createSharedBucket(collections: SharedRoster.collections, member: creator.credentials.user)
        let appended = try await SharedRoster.append(entry, with: client)
        XCTAssertTrue(appended, "\(name): entry 0 was taken")
        try await SharedRoster.writeSeal(epochKey, epoch: 1, to: try creator.person(), in: vaultID, with: client)
        let vault = try Vault.create(at: fixture.path(of: creator), passphrase: epochKey, kdf: Device.fastKDF,
                                     deviceName: creator.name,
                                     meta: try fixture.meta(of: creator, server: server, epoch: 1, epochKey: epochKey, roster: [entry]),
                                     clock: { clock.timestamp })
        // As `share create` does: what the new copy writes is signed (issue 42).
        await vault.signItems(as: MemberSecrets(epoch: 1, epochKey: epochKey, person: creator.keys))
        return (fixture, Device.shared(creator.name, vault: vault, server: server, credentials: creator.credentials, clock: clock))
    }

    /// A client of `member`'s account on the vault's bucket.
    func client(of member: Member, server: URL, timeout: TimeInterval = 10) -> KintoClient {
        KintoClient(server: server, credentials: member.credentials, bucket: vaultID.bucket, timeout: timeout,
                    now: { [clock] in clock.date })
    }

    /// The roster the server serves now, verified from entry 0.
    func roster(as member: Member, server: URL) async throws -> (entries: [RosterEntry], state: RosterState) {
        let entries = try await SharedRoster.served(by: client(of: member, server: server), vault: name)
        return (entries, try SharedRoster.verify(entries, vaultID: vaultID, continuing: [], vault: name))
    }

    /// The entry `author` would append for `change` after the roster the server serves now.
    func nextEntry(_ change: RosterChange, by author: Member, server: URL, epochKey key: SecureBuffer? = nil)
        async throws -> RosterEntry {
        let (_, state) = try await roster(as: author, server: server)
        return try RosterChain.entry(appending: change, to: state, by: author.keys, epochKey: key ?? epochKey)
    }

    /// The inviting side of an invitation once the person was allowed (`ShareMember.add`): the
    /// `add` appended (made again after the roster when another entry took its position), the
    /// epoch key sealed to them, their account in the group. The entry, or what the server threw.
    @discardableResult
    func invite(_ member: Member, by inviter: Member, server: URL) async throws -> RosterEntry {
        let client = client(of: inviter, server: server)
        let person = try member.person()
        for _ in 0..<5 {
            let entry = try await nextEntry(.add(person), by: inviter, server: server)
            guard try await SharedRoster.append(entry, with: client) else { continue }
            try await SharedRoster.writeSeal(epochKey, epoch: entry.epoch, to: person, in: vaultID, with: client)
            try await SharedRoster.admit(account: member.credentials.user, with: client)
            return entry
        }
        throw KintoError.network(message: "the roster kept changing")
    }

    /// The joining side once the grant arrived (`ShareMember.admission`, `share join`): the roster
    /// verified from entry 0 and listing them, the epoch key sealed to them opened and checked,
    /// their copy made from the bucket's keystore and synced once.
    func join(_ member: Member, server: URL) async throws -> Device {
        let client = client(of: member, server: server)
        let (entries, state) = try await roster(as: member, server: server)
        XCTAssertNotNil(state.members[member.keys.id], "\(member.name) is not in the roster of \(name)")
        let key = try await SharedRoster.openSeal(for: state, with: member.keys, client: client, vault: name)
        guard let key, case .changes(let records, _) = try await client.fetchChanges(collection: .keystores, since: nil),
              let record = records.first else {
            XCTFail("\(member.name): no key sealed to them, or no keystore in \(name)")
            throw JoinFailure()
        }
        let keystore = try JSONDecoder().decode(KeystoreRecord.self, from: record)
        let vault = try Vault.join(at: path(of: member), keystore: keystore, passphrase: key, deviceName: member.name,
                                   meta: try meta(of: member, server: server, epoch: state.epoch, epochKey: key, roster: entries),
                                   clock: { [clock] in clock.timestamp })
        await vault.signItems(as: MemberSecrets(epoch: state.epoch, epochKey: key, person: member.keys))
        let copy = Device.shared(member.name, vault: vault, server: server, credentials: member.credentials, clock: clock)
        await copy.syncExpectingSuccess()
        return copy
    }

    private func path(of member: Member) -> String {
        directory.appendingPathComponent("\(member.name)-\(name)-\(member.keys.id.prefix(8)).db").path
    }

    /// What a copy keeps in `meta` from its first transaction on (`ShareMember.meta`), but for the
    /// personal vault beside it: the account, the vault, the person, the epoch, the member's
    /// secrets sealed under `Device.passphrase`, the roster verified.
    private func meta(of member: Member, server: URL, epoch: UInt64, epochKey: SecureBuffer,
                      roster: [RosterEntry]) throws -> [MetaKey: String] {
        let kdf = personalKDF
        let keys = try PassphraseKeys(passphrase: secret(Device.passphrase), parameters: kdf)
        let secrets = MemberSecrets(epoch: epoch, epochKey: epochKey, person: member.keys)
        let account = SyncAccount(server: server, user: member.credentials.user, password: member.credentials.password)
        return account.meta.merging([
            .shareVault: vaultID.bucket, .shareName: name, .sharePerson: member.keys.id, .shareEpoch: String(epoch),
            .shareMember: try secrets.sealed(under: keys, kdf: kdf, vaultID: vaultID), .rosterEntries: Vault.rosterMeta(roster),
        ]) { $1 }
    }
}
