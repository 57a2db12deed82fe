import Foundation

/// Checks roster entries one at a time, each against the state the entries before it made: the
/// rules of architecture §17, in one place for `RosterChain.verify` and the signing side.
///
/// Each entry is first checked without changing anything (`decide`), then taken in (`apply`),
/// which changes the state in place: a chain of 10,000 entries never copies its member list.
struct RosterVerifier {
    let vaultID: SharedVaultID
    /// Nil until entry 0 is accepted.
    private(set) var state: RosterState?
    /// Open only right after one member's `remove` of another, at position N: what the removed
    /// member's own removal of the winner, signed against entry N−1 too, is checked against if
    /// it comes next. Whatever comes next closes it.
    private var raceWindow: RaceWindow?

    private struct RaceWindow {
        /// N: the position both removals were signed for.
        let position: Int
        /// The hash, and the epoch, of entry N−1.
        let previous: Data
        let epoch: UInt64
        let winner: String
        /// The member entry N removed, with the key their raced entry must verify under.
        let loser: RosterState.Member
    }

    /// How an accepted entry changes the state.
    private enum Decision {
        case inOrder(RosterEntry, at: Int, opening: RaceWindow?)
        case raced(RosterEntry, at: Int, removing: String)
    }

    /// A verifier of a chain from entry 0.
    init(vaultID: SharedVaultID) {
        self.vaultID = vaultID
    }

    /// A verifier of what may follow a chain already verified (for signing the next entry).
    init(continuing state: RosterState) {
        vaultID = state.vaultID
        self.state = state
    }

    /// Checks `entry` as the next of the chain and takes in its change; on a problem nothing changes.
    mutating func append(_ entry: RosterEntry) throws(RosterProblem) {
        guard state != nil else {
            state = try Self.first(entry, vaultID: vaultID)
            return
        }
        apply(try decide(entry))
    }

    // MARK: - Checking

    /// Entry 0: the vault's creation, signed by the person it creates, epoch 1.
    private static func first(_ entry: RosterEntry, vaultID: SharedVaultID) throws(RosterProblem) -> RosterState {
        func problem(_ reason: RosterProblem.Reason) -> RosterProblem { RosterProblem(position: 0, reason: reason) }
        guard entry.vaultID == vaultID else { throw problem(.otherVault(entry.vaultID)) }
        guard entry.sequence == 0 else { throw problem(.wrongSequence(entry.sequence)) }
        guard entry.previous == Data(count: RosterEntry.hashLength) else { throw problem(.wrongPrevious(expected: nil)) }
        guard case .create(let person) = entry.change else { throw problem(.firstIsNotCreate) }
        guard entry.author == person.id else { throw problem(.createNotSelfSigned) }
        guard entry.isSigned(byKey: person.signingKey) else { throw problem(.badSignature) }
        guard entry.epoch == 1 else { throw problem(.wrongEpoch(expected: 1, found: entry.epoch)) }
        return RosterState(vaultID: vaultID, members: [person.id: .init(person: person, addedBy: person.id, addedAt: 0)],
                           epoch: 1, epochCommitment: entry.epochCommitment, epochStart: 0, recoveryKey: nil,
                           head: RosterHead(position: 0, hash: entry.hash), needsRotation: false)
    }

    /// Whether `entry` may follow, and how: every entry after the first.
    private func decide(_ entry: RosterEntry) throws(RosterProblem) -> Decision {
        guard let state else { throw RosterProblem(position: 0, reason: .noEntries) }
        let position = state.head.position + 1
        func problem(_ reason: RosterProblem.Reason) -> RosterProblem { RosterProblem(position: position, reason: reason) }
        guard position < RosterChain.entryLimit else { throw problem(.tooManyEntries) }
        guard !state.isFinal else { throw problem(.afterLastMember) }
        guard entry.vaultID == vaultID else { throw problem(.otherVault(entry.vaultID)) }
        if entry.sequence == UInt64(position) {
            return .inOrder(entry, at: position, opening: try Self.checkInOrder(entry, after: state, problem: problem))
        }
        if entry.sequence == UInt64(position - 1), let raceWindow {
            try Self.checkRaced(entry, after: state, window: raceWindow, problem: problem)
            return .raced(entry, at: position, removing: raceWindow.winner)
        }
        throw problem(.wrongSequence(entry.sequence))
    }

    /// An entry signed after the one before it, by a member; returns the race window a removal opens.
    private static func checkInOrder(_ entry: RosterEntry, after state: RosterState,
                                     problem: (RosterProblem.Reason) -> RosterProblem) throws(RosterProblem) -> RaceWindow? {
        let position = state.head.position + 1
        guard entry.previous == state.head.hash else { throw problem(.wrongPrevious(expected: position - 1)) }
        // The key as the roster recorded it: a key the server offers is never asked for.
        guard let author = state.members[entry.author] else { throw problem(.authorNotMember) }
        guard entry.isSigned(byKey: author.person.signingKey) else { throw problem(.badSignature) }
        if entry.change.beginsEpoch {
            // Epochs count entries from 1, so with at most `entryLimit` entries this cannot overflow.
            guard entry.epoch == state.epoch + 1 else { throw problem(.wrongEpoch(expected: state.epoch + 1, found: entry.epoch)) }
        }
        switch entry.change {
        case .create:
            throw problem(.createAgain)
        case .add(let person):
            // A person removed earlier may be added again: it is a new membership.
            guard state.members[person.id] == nil else { throw problem(.alreadyMember(person.id)) }
            guard state.members.count < RosterChain.memberLimit else { throw problem(.tooManyMembers) }
            guard entry.epoch == state.epoch else { throw problem(.wrongEpoch(expected: state.epoch, found: entry.epoch)) }
            guard entry.epochCommitment == state.epochCommitment else { throw problem(.commitmentChanged) }
            return nil
        case .remove(let id):
            guard let removed = state.members[id] else { throw problem(.notMember(id)) }
            // Leaving races nobody: no one else's removal of the leaver can follow.
            guard id != entry.author else { return nil }
            return RaceWindow(position: position, previous: state.head.hash, epoch: state.epoch, winner: entry.author,
                              loser: removed)
        case .recovery(let key):
            guard key.count == Person.keyLength else { throw problem(.invalidRecoveryKey) }
            return nil
        case .rotate:
            return nil
        }
    }

    /// The loser's removal of the winner, signed against entry N−1 like the winner's removal of
    /// the loser at N, and appended right after it.
    private static func checkRaced(_ entry: RosterEntry, after state: RosterState, window: RaceWindow,
                                   problem: (RosterProblem.Reason) -> RosterProblem) throws(RosterProblem) {
        guard entry.previous == window.previous else { throw problem(.wrongPrevious(expected: window.position - 1)) }
        guard entry.author == window.loser.person.id else {
            throw problem(state.members[entry.author] == nil ? .authorNotMember : .racedAuthorNotRemoved(against: window.position))
        }
        // The loser was a member after entry N−1, with this key.
        guard entry.isSigned(byKey: window.loser.person.signingKey) else { throw problem(.badSignature) }
        guard entry.change == .remove(personID: window.winner) else { throw problem(.racedRemovesOther(against: window.position)) }
        // What a removal at N would say; the state keeps entry N's epoch all the same.
        guard entry.epoch == window.epoch + 1 else { throw problem(.wrongEpoch(expected: window.epoch + 1, found: entry.epoch)) }
    }

    // MARK: - Taking in

    private mutating func apply(_ decision: Decision) {
        switch decision {
        case .inOrder(let entry, let position, let window):
            switch entry.change {
            case .create, .rotate: break
            case .add(let person): state?.members[person.id] = .init(person: person, addedBy: entry.author, addedAt: position)
            case .remove(let id): state?.members[id] = nil
            case .recovery(let key): state?.recoveryKey = key
            }
            if entry.change.beginsEpoch {
                state?.epoch = entry.epoch
                state?.epochCommitment = entry.epochCommitment
                state?.epochStart = position
                state?.needsRotation = false
            }
            state?.head = RosterHead(position: position, hash: entry.hash)
            raceWindow = window
        case .raced(let entry, let position, let winner):
            // Both removals take effect. The epoch stays entry N's: the loser's key was never
            // sealed to anyone, and the winner, now removed, knows entry N's key, so the vault
            // needs a new epoch before anything more is sealed.
            state?.members[winner] = nil
            state?.needsRotation = true
            state?.head = RosterHead(position: position, hash: entry.hash)
            raceWindow = nil
        }
    }
}
