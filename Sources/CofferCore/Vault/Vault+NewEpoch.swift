import Foundation

/// A shared vault's session meeting a newer epoch while it is open (architecture §17): a sync of
/// this process fetched the new key, or another process took it and gave the vault new keys. An
/// epoch's key is taken at an unlock, so the session opens the vault again with the person's
/// passphrase keys it was unlocked with (`member`) — in the same actor call, so no other work on
/// this vault finds it locked in between. Only a session without them (one made by `share join`)
/// locks, for the next unlock to take the key.
extension Vault {
    /// What a sync did about a newer epoch's key it fetched while the vault was unlocked.
    public enum NewEpochOutcome: Sendable, Equatable {
        /// The session took it: the vault stayed unlocked (and got new keys if this person began the epoch).
        case taken(UInt64)
        /// The session could not take it (no passphrase keys, or the key was refused): the vault locked.
        case locked(UInt64)
    }

    /// After a sync stored a newer epoch's key sealed to this person (`meta.share_pending_seal`):
    /// an unlocked session of an older epoch takes it now. Nil when there is nothing to take (locked,
    /// or the session holds that epoch already).
    public func takeNewerEpoch() -> NewEpochOutcome? {
        guard session != nil, let pending = pendingSealEpoch(), pending > (member?.epoch ?? 0) else { return nil }
        if (try? reopenWithMemberKeys()) == true, let held = member?.epoch, held >= pending { return .taken(pending) }
        lock()
        return .locked(pending)
    }

    /// Runs `write`. When it finds the session stale — another process gave the vault new keys
    /// under an epoch this session has not taken, so `absorbForWriting` locked it — the vault is
    /// opened again with the person's keys, taking the key stored now, and `write` runs once more.
    /// Safe: the first attempt's transaction rolled back, and the second reads everything again.
    func reopeningIfStale<Result>(_ write: () throws -> Result) throws -> Result {
        try reopenIfStale()
        guard let keys = member?.keys.copied() else { return try write() }
        defer { keys.wrappingKey.wipe() }
        do {
            return try write()
        } catch CoreError.locked where session == nil {
            try reopen(with: keys)
            return try write()
        }
    }

    /// Before a write or a listing: a keystore another process stored since this session opened
    /// is taken in; one this session cannot open (a later epoch's) makes it open the vault again,
    /// so an edit is never sealed under keys the vault has retired, nor a listing left unreadable.
    func reopenIfStale() throws {
        guard let session, member != nil,
              let current = try database.read({ try VaultDatabase.currentKeystore(in: $0) }), !current.isDeleted,
              RingSource(current.encrypted) != session.ringSource else { return }
        // A keystore that does not check out (a forged generation) is left to the sync that
        // absorbs it; the listing shows what the session opens, as before.
        guard let absorbed = try? absorbKeystore(current, into: session) else { return }
        if case .unopenable = absorbed {
            _ = try reopenWithMemberKeys()
        } else {
            self.session?.ringSource = RingSource(current.encrypted)
        }
    }

    /// Unlocks again with the person's keys this session holds; false without them.
    private func reopenWithMemberKeys() throws -> Bool {
        guard let keys = member?.keys.copied() else { return false }
        defer { keys.wrappingKey.wipe() }
        try reopen(with: keys)
        return true
    }

    /// `unlock(keys:)`; keys the member secrets no longer open (the passphrase was changed on
    /// another device since) leave the vault locked, said as "locked": the passphrase asks again.
    private func reopen(with keys: PassphraseKeys) throws {
        do {
            try unlock(keys: keys)
        } catch CoreError.wrongPassphrase {
            lock()
            throw CoreError.locked
        }
    }

    /// The epoch of the key a sync fetched and left for the next unlock, if any.
    private func pendingSealEpoch() -> UInt64? {
        (try? database.meta(.sharePendingSeal)).flatMap { $0 }?.split(separator: " ").first.flatMap { UInt64($0) }
    }
}
