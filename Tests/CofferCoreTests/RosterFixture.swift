import Foundation
import XCTest
@testable import CofferCore

/// The people of the roster tests, with the names and accounts their `Person` records carry.
enum RosterPeople {
    static let alice = PersonKeys(), bob = PersonKeys(), carol = PersonKeys(), dave = PersonKeys()
    /// Never added to any chain: the server, or anyone, signing with a key of their own.
    static let mallory = PersonKeys()

    static func person(_ keys: PersonKeys) throws -> Person {
        let name = [alice.id: "Alice", bob.id: "Bob", carol.id: "Carol", dave.id: "Dave"][keys.id] ?? "Mallory"
        return try keys.person(name: name, account: name.lowercased() + "@example.org")
    }
}

/// A roster chain built the way Coffer builds one: each entry made by `RosterChain`'s signing
/// side, each epoch's key kept as its members would keep it.
struct RosterChainBuilder {
    let vault: SharedVaultID
    private(set) var entries: [RosterEntry]
    private(set) var state: RosterState
    /// The key of each epoch, as the member who began it made it.
    private(set) var epochKeys: [UInt64: SecureBuffer]

    /// A chain of one entry: `creator` makes the vault.
    init(creator: PersonKeys, vault: SharedVaultID = .random()) throws {
        self.vault = vault
        let key = SecureBuffer.random(count: 32)
        let person = try RosterPeople.person(creator)
        let first = try RosterChain.creation(of: vault, name: person.name, account: person.account, by: creator, epochKey: key)
        entries = [first]
        epochKeys = [1: key]
        state = try RosterChain.verify(entries: entries, vaultID: vault).get()
    }

    /// Alice creates the vault, adds Bob, and Bob adds Carol: entries 0, 1 and 2, all in epoch 1.
    static func family() throws -> RosterChainBuilder {
        var chain = try RosterChainBuilder(creator: RosterPeople.alice)
        try chain.append(.add(try RosterPeople.person(RosterPeople.bob)), by: RosterPeople.alice)
        try chain.append(.add(try RosterPeople.person(RosterPeople.carol)), by: RosterPeople.bob)
        return chain
    }

    /// Appends `change`, signed by `keys`, with a fresh epoch key when it begins an epoch.
    mutating func append(_ change: RosterChange, by keys: PersonKeys) throws {
        let key = change.beginsEpoch ? SecureBuffer.random(count: 32) : currentEpochKey
        try append(RosterChain.entry(appending: change, to: state, by: keys, epochKey: key))
        if change.beginsEpoch { epochKeys[state.epoch] = key }
    }

    /// Appends an entry made elsewhere (a raced removal); it must verify.
    mutating func append(_ entry: RosterEntry) throws {
        entries.append(entry)
        state = try RosterChain.verify(entries: entries, vaultID: vault).get()
    }

    var currentEpochKey: SecureBuffer { epochKeys[state.epoch] ?? SecureBuffer(count: 32) }

    /// An entry signed by `keys` that could follow the chain, with any field given made wrong.
    func signed(_ change: RosterChange, by keys: PersonKeys, vault: SharedVaultID? = nil, sequence: UInt64? = nil,
                previous: Data? = nil, epoch: UInt64? = nil, commitment: Data? = nil) throws -> RosterEntry {
        let nextEpoch = change.beginsEpoch ? state.epoch + 1 : state.epoch
        let nextCommitment = change.beginsEpoch ? EpochCommitment.commitment(epoch: nextEpoch, key: .random(count: 32))
                                                : state.epochCommitment
        return try RosterEntry(vaultID: vault ?? self.vault, sequence: sequence ?? UInt64(state.head.position + 1),
                               previous: previous ?? state.head.hash, change: change, epoch: epoch ?? nextEpoch,
                               epochCommitment: commitment ?? nextCommitment, signedBy: keys)
    }

    /// What verifying the chain with `tail` after it gives.
    func verify(appending tail: [RosterEntry]) -> Result<RosterState, RosterProblem> {
        RosterChain.verify(entries: entries + tail, vaultID: vault)
    }
}

extension RosterEntry {
    /// This entry with its author kept but the signature made by `keys`: a forgery.
    func signature(by keys: PersonKeys) throws -> RosterEntry {
        RosterEntry(vaultID: vaultID, sequence: sequence, previous: previous, author: author, change: change, epoch: epoch,
                    epochCommitment: epochCommitment, signature: try keys.signature(for: signedBytes))
    }
}

/// The problem `result` refused a chain with, nil when it was accepted.
func rosterProblem(_ result: Result<RosterState, RosterProblem>) -> RosterProblem? {
    if case .failure(let problem) = result { return problem }
    return nil
}
