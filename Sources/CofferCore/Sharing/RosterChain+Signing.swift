import Foundation

extension RosterChain {
    /// Entry 0 of a new vault's roster: the person of `keys` creates it, as its first member, in
    /// epoch 1 with `epochKey` (32 random bytes).
    ///
    /// - Throws: `Person.Problem` for a name or account outside their form.
    public static func creation(of vaultID: SharedVaultID, name: String, account: String, by keys: PersonKeys,
                                epochKey: SecureBuffer) throws -> RosterEntry {
        precondition(epochKey.count == EpochCommitment.keyLength)
        let entry = try RosterEntry(vaultID: vaultID, sequence: 0, previous: Data(count: RosterEntry.hashLength),
                                    change: .create(try keys.person(name: name, account: account)), epoch: 1,
                                    epochCommitment: EpochCommitment.commitment(epoch: 1, key: epochKey), signedBy: keys)
        var verifier = RosterVerifier(vaultID: vaultID)
        try verifier.append(entry)
        return entry
    }

    /// The entry that makes `change` after the chain `state` came from, signed by `keys`.
    ///
    /// `epochKey` is the key of the epoch after the entry: a fresh random one for a change that
    /// begins an epoch, the current one for `add` (whose commitment must stay the same). The
    /// entry is checked by the same rules `verify` applies, so what this returns, appended to
    /// the chain, verifies.
    ///
    /// - Throws: the `RosterProblem` the entry would be refused with (the signer is not a member,
    ///   the person to add already is one, the chain is final, …).
    public static func entry(appending change: RosterChange, to state: RosterState, by keys: PersonKeys,
                             epochKey: SecureBuffer) throws -> RosterEntry {
        precondition(epochKey.count == EpochCommitment.keyLength)
        let epoch = change.beginsEpoch ? state.epoch + 1 : state.epoch
        let entry = try RosterEntry(vaultID: state.vaultID, sequence: UInt64(state.head.position + 1),
                                    previous: state.head.hash, change: change, epoch: epoch,
                                    epochCommitment: EpochCommitment.commitment(epoch: epoch, key: epochKey), signedBy: keys)
        var verifier = RosterVerifier(continuing: state)
        try verifier.append(entry)
        return entry
    }

    /// A removal of `winnerID` signed against `lostState`, the chain as it was before the
    /// winner's removal of this person took the same position.
    ///
    /// It is the entry this person tried to write at that position, made again (or kept): once
    /// the winner's entry is there, it goes in the next record unchanged, and `verify` accepts it
    /// there only (architecture §17, a raced removal).
    public static func racedRemoval(of winnerID: String, against lostState: RosterState, by keys: PersonKeys,
                                    epochKey: SecureBuffer) throws -> RosterEntry {
        try entry(appending: .remove(personID: winnerID), to: lostState, by: keys, epochKey: epochKey)
    }
}
