import Foundation
import XCTest
@testable import CofferCore

/// Alice's copy of a shared vault in one file, as `share create` leaves it (epoch 1, Bob a
/// member), and what a sync does when someone begins a new epoch: the roster it stored and the
/// key sealed to Alice it keeps for the next unlock. Two `Vault`s on the one file stand for two
/// processes (a screen and a command): each has its own SQLite connection and session.
struct SharedCopyFixture {
    static let passphrase = "correct horse battery staple"
    static let kdf = KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: 3)

    let path: String
    private(set) var chain: RosterChainBuilder
    let alice = RosterPeople.alice

    init(directory: URL, items: [String] = ["Door", "Bike"]) async throws {
        chain = try RosterChainBuilder(creator: alice)
        try chain.append(.add(try RosterPeople.person(RosterPeople.bob)), by: alice)
        path = directory.appendingPathComponent("home.db").path
        let keys = try PassphraseKeys(passphrase: Self.buffer(Self.passphrase), parameters: Self.kdf)
        let epochKey = chain.currentEpochKey
        let secrets = MemberSecrets(epoch: 1, epochKey: epochKey, person: alice)
        let vault = try Vault.create(at: path, passphrase: epochKey, kdf: MemberSecrets.keystoreKDF(epochKey: epochKey), meta: [
            .shareVault: chain.vault.bucket, .shareName: "home", .sharePerson: alice.id, .shareEpoch: "1",
            .shareMember: try secrets.sealed(under: keys, kdf: Self.kdf, vaultID: chain.vault),
            .rosterEntries: Vault.rosterMeta(chain.entries),
        ])
        for title in items { try await vault.add(Item(title: title, created: .now())) }
        await vault.lock()
    }

    static func buffer(_ text: String) -> SecureBuffer { SecureBuffer(copying: Array(text.utf8)) }

    /// Another process's handle on the file.
    func open() throws -> Vault { try Vault.open(at: path) }

    /// What a sync of any process on this file does when `author` appends `rotate`: the roster it
    /// verified is stored and the new key sealed to Alice waits for an unlock. When Alice began
    /// it, her device noted that it gives the vault new keys (`meta.share_rekey`, before the entry).
    mutating func bringEpoch(by author: PersonKeys) throws -> UInt64 {
        let database = try VaultDatabase.open(at: path)
        try chain.append(.rotate, by: author)
        let epoch = chain.state.epoch
        if author.id == alice.id { try database.setMeta(.shareRekey, String(epoch)) }
        let sealed = try EpochSeal.seal(chain.currentEpochKey, epoch: epoch, to: try RosterPeople.person(alice), in: chain.vault)
        try database.setMeta(.rosterEntries, Vault.rosterMeta(chain.entries))
        try database.setMeta(.sharePendingSeal, "\(epoch) \(sealed.base64EncodedString())")
        return epoch
    }

    /// The key of `epoch`, as its author made it.
    func epochKey(_ epoch: UInt64) -> SecureBuffer { chain.epochKeys[epoch] ?? SecureBuffer(count: 32) }
}
