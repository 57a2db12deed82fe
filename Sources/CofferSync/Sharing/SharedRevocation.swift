import CofferCore
import Foundation

/// Taking a member out of a shared vault (architecture §17, "Revoking"): the roster's `remove`
/// with a new epoch, that epoch's key sealed to everyone left, the person's account out of the
/// bucket's group, the bucket's, collections' and groups' permissions brought back to what the
/// roster implies, and the author permissions cleared off every record they may have written
/// last, so the server refuses them. The revoker's next unlock gives the vault new keys
/// (`Vault.rekey`), which what is written from then on is sealed with; nothing is sealed again.
public struct SharedRevocation: Sendable {
    public let client: KintoClient
    public let vaultID: SharedVaultID
    public let vault: String
    /// The secrets of the member who revokes.
    public let secrets: MemberSecrets

    /// How long the person removed keeps the bucket after the entry: if they were removing this
    /// member at the same moment, their entry lost the position and goes in after ours, which
    /// they can write only while the group still holds them (both removals then take effect).
    public let raceGrace: TimeInterval

    /// Picks, from the members who stay, the item records whose `write` may be someone else's
    /// (`Vault.itemIDs(signedByNoneOf:)`): the only item records rewritten.
    public let itemsToRewrite: @Sendable (Set<String>) throws -> [String]

    public init(client: KintoClient, vaultID: SharedVaultID, vault: String, secrets: MemberSecrets, raceGrace: TimeInterval = 2,
                itemsToRewrite: @escaping @Sendable (Set<String>) throws -> [String]) {
        self.client = client
        self.vaultID = vaultID
        self.vault = vault
        self.secrets = secrets
        self.raceGrace = raceGrace
        self.itemsToRewrite = itemsToRewrite
    }

    /// What a revocation did: the roster after it and how many records were rewritten.
    public struct Outcome: Sendable {
        public var entries: [RosterEntry]
        public var state: RosterState
        public var rewritten: Int
        /// Records whose permissions could not be rewritten (no marker is left, so the next member
        /// device that sees the removal rewrites them: `RosterStep`).
        public var unrewritten: Int
        /// The other side of a raced removal was appended too (both removals took effect).
        public var raced: Bool
        /// What of the bucket's, collections' and groups' permissions could not be brought back
        /// to what the roster implies (`SharedPermissions`), one sentence each; empty when right.
        public var permissionsLeft: [String] = []
    }

    /// Removes `personID` (the revoker themselves: leaving), continuing the roster this device
    /// verified (`stored`). Two members removing each other at once both take effect: the one
    /// whose entry lost the position appends it after the winner's (`RosterChain.racedRemoval`).
    ///
    /// `decidedOn` is the roster as this member saw it when they chose to remove the person (the
    /// one the device had verified before): if the person's removal of this member landed right
    /// after it, the two were made at the same moment.
    ///
    /// Run again after an attempt of this member that wrote its entry and then failed (its answer
    /// lost, a later request refused), it finishes that removal (`finishEarlier`).
    public func remove(_ personID: String, continuing stored: [RosterEntry], decidedOn: [RosterEntry]) async throws -> Outcome {
        var known = stored
        for _ in 0..<5 {
            let served = try await SharedRoster.served(by: client, vault: vault)
            let state = try SharedRoster.verify(served, vaultID: vaultID, continuing: known, vault: vault)
            known = served
            guard state.members[secrets.person.id] != nil else {
                return try await appendRaced(removing: personID, after: served, decidedOn: decidedOn)
            }
            guard let target = state.members[personID] else {
                // Removed already by this member: an attempt whose answer was lost, or that stopped half-way.
                guard let removal = served.lastIndex(where: { $0.change == .remove(personID: personID) }),
                      served[removal].author == secrets.person.id,
                      case .success(let before) = RosterChain.verify(entries: Array(served[..<removal]), vaultID: vaultID),
                      let person = before.members[personID]?.person else {
                    throw RosterProblem(position: served.count, reason: .notMember(personID))
                }
                if let outcome = try await finishEarlier(removalAt: removal, of: person, after: served, state: state) { return outcome }
                continue
            }
            let key = SecureBuffer.random(count: EpochCommitment.keyLength)
            let entry = try RosterChain.entry(appending: .remove(personID: personID), to: state, by: secrets.person, epochKey: key)
            if try await SharedRoster.append(entry, with: client) {
                CrashPoint.reach("share.revoke.after-entry")
                return try await finish(after: served + [entry], removing: target.person, key: key, raced: false)
            }
            // Another entry took the position. If it removed this member, and was signed by the
            // person this member removes, this removal still goes in right after it.
            let now = try await SharedRoster.served(by: client, vault: vault)
            let after = try SharedRoster.verify(now, vaultID: vaultID, continuing: known, vault: vault)
            let position = Int(entry.sequence)
            if now.count == position + 1, after.members[secrets.person.id] == nil,
               now[position].change == .remove(personID: secrets.person.id), now[position].author == personID {
                // The entry that lost, unchanged, in the record after the winner's.
                if try await SharedRoster.append(entry, at: position + 1, with: client) {
                    return try await finish(after: now + [entry], removing: target.person, key: key, raced: true)
                }
            }
            known = now
        }
        throw KintoError.network(message: "Other members kept changing the roster of \u{201C}\(vault)\u{201D}; try again.")
    }

    /// This member was removed by `personID` in the entry right after the roster they decided
    /// on: their removal of that person goes in after it (`RosterChain.racedRemoval`).
    private func appendRaced(removing personID: String, after served: [RosterEntry], decidedOn: [RosterEntry]) async throws -> Outcome {
        guard served.count == decidedOn.count + 1, let winner = served.last,
              winner.change == .remove(personID: secrets.person.id), winner.author == personID,
              case .success(let lost) = RosterChain.verify(entries: decidedOn, vaultID: vaultID),
              let target = lost.members[personID] else { throw RosterRefusal(vault: vault, reason: .removed) }
        let key = SecureBuffer.random(count: EpochCommitment.keyLength)
        let raced = try RosterChain.racedRemoval(of: personID, against: lost, by: secrets.person, epochKey: key)
        guard try await SharedRoster.append(raced, at: served.count, with: client) else { throw RosterRefusal(vault: vault, reason: .removed) }
        return try await finish(after: served + [raced], removing: target.person, key: key, raced: true)
    }

    /// This member's removal of `person`, at `position` of `served`, by an earlier attempt whose
    /// answer was lost or that stopped half-way (`share revoke` run again): the key its entry
    /// committed to went with that attempt, so a `rotate` begins one more epoch, sealed to everyone
    /// left, and the rest follows as after any removal. Nil when another entry took the position.
    private func finishEarlier(removalAt position: Int, of person: Person, after served: [RosterEntry],
                               state: RosterState) async throws -> Outcome? {
        let key = SecureBuffer.random(count: EpochCommitment.keyLength)
        let entry = try RosterChain.entry(appending: .rotate, to: state, by: secrets.person, epochKey: key)
        guard try await SharedRoster.append(entry, with: client) else { return nil }
        return try await finish(after: served + [entry], removing: person, key: key, raced: false, removalAt: position)
    }

    /// `removalAt`: the position of the person's removal (the last entry of `appended` unless
    /// an earlier attempt made it), which the record of the rewritten permissions names.
    private func finish(after appended: [RosterEntry], removing person: Person, key: SecureBuffer, raced: Bool,
                        removalAt: Int? = nil) async throws -> Outcome {
        var entries = appended
        var state = try SharedRoster.verify(entries, vaultID: vaultID, continuing: [], vault: vault)
        if raced {
            // This member is out too: the new key is sealed to nobody (the vault needs a rotation,
            // `RosterState.needsRotation`), and the bucket may refuse us already. Whoever stays
            // takes the winner out of the group when they see the roster (`RosterStep`).
            try? await SharedRoster.dismiss(account: person.account, with: client)
            return Outcome(entries: entries, state: state, rewritten: 0, unrewritten: 0, raced: true)
        }
        for member in state.members.values {
            try await SharedRoster.writeSeal(key, epoch: entries.last!.epoch, to: member.person, in: vaultID, with: client)
        }
        CrashPoint.reach("share.revoke.after-seals")
        if person.id != secrets.person.id, raceGrace > 0 {
            try await Task.sleep(nanoseconds: UInt64(raceGrace * 1_000_000_000))
            let now = try await SharedRoster.served(by: client, vault: vault)
            state = try SharedRoster.verify(now, vaultID: vaultID, continuing: entries, vault: vault)
            entries = now
            // They removed us at the same moment: both are out, and a member who stays takes
            // both accounts out of the group when they see the roster (`RosterStep`).
            if state.members[secrets.person.id] == nil { return Outcome(entries: entries, state: state, rewritten: 0, unrewritten: 0, raced: true) }
        }
        let stillUsed = state.members.values.contains { $0.person.account == person.account }
        if !stillUsed { try await SharedRoster.dismiss(account: person.account, with: client) }
        // Someone leaving cannot take their own permissions off (Kinto gives them back to
        // whoever rewrites): the next member device that sees the roster does it (`RosterStep`).
        guard person.id != secrets.person.id else { return Outcome(entries: entries, state: state, rewritten: 0, unrewritten: 0, raced: false) }
        // Only the revoker's own account may stay (Kinto puts it back on whatever it rewrites):
        // the bucket's creator and anything a member granted themselves go.
        // A failure here is reported, not thrown: the removal holds, and running the revocation
        // again would begin one more epoch. The next member sync that sees the removal retries.
        let permissionsLeft: [String]
        do {
            permissionsLeft = try await SharedPermissions.restore(with: client, allowing: []).unresolved
        } catch {
            permissionsLeft = ["the permissions could not be checked (\((error as? KintoError)?.userMessage ?? "\(error)"))"]
        }
        let items = try itemsToRewrite(Set(state.members.keys))
        let (rewritten, unrewritten) = try await SharedRoster.clearAuthorPermissions(with: client, items: items)
        let removal = removalAt ?? appended.count - 1
        if unrewritten == 0 { try await SharedRoster.markRewritten(after: removal, with: client) }
        return Outcome(entries: entries, state: state, rewritten: rewritten, unrewritten: unrewritten, raced: raced,
                       permissionsLeft: permissionsLeft)
    }
}
