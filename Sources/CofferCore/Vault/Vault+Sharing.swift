import Foundation
import GRDB

extension Vault {
    /// The shared vault this file is a member's copy of (architecture §17), or nil for a personal vault.
    public nonisolated var sharedVaultID: SharedVaultID? {
        (try? database.meta(.shareVault)).flatMap { $0 }.flatMap(SharedVaultID.init(bucket:))
    }

    /// The member's secrets of a shared vault, opened with the person's passphrase; nil for a
    /// personal vault.
    ///
    /// - Throws: `wrongPassphrase`, `kdfDowngrade`, or `tampered` (a shared vault without them).
    public nonisolated func memberSecrets(passphrase: SecureBuffer) throws -> MemberSecrets? {
        guard let vaultID = sharedVaultID else { return nil }
        guard let stored = try database.meta(.shareMember) else {
            throw CoreError.tampered(what: "this shared vault has no member keys")
        }
        return try MemberSecrets.open(stored, passphrase: passphrase, vaultID: vaultID)
    }

    /// The roster entries this device verified last (`meta.roster_entries`), oldest first.
    public nonisolated func verifiedRoster() throws -> [RosterEntry] {
        guard let text = try database.meta(.rosterEntries) else { return [] }
        return try text.split(separator: "\n").map { line in
            guard let bytes = Data(base64Encoded: String(line)), let entry = try? RosterEntry(encoded: bytes) else {
                throw CoreError.tampered(what: "the stored roster is malformed")
            }
            return entry
        }
    }

    /// Keeps a newer epoch's key sealed to this person (`meta.share_pending_seal`) for the next
    /// unlock, only if the copy still holds an older epoch (`meta.share_epoch`) when it is written.
    /// False when it holds that epoch already (another process took it meanwhile).
    package nonisolated func keepPendingSeal(_ sealed: String, epoch: UInt64) throws -> Bool {
        try database.write { db in
            let known = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.shareEpoch.rawValue])
            guard epoch > known.flatMap({ UInt64($0) }) ?? 1 else { return false }
            try VaultDatabase.setMeta(.sharePendingSeal, "\(epoch) \(sealed)", in: db)
            return true
        }
    }

    /// `meta.roster_entries`' text for `entries`.
    public static func rosterMeta(_ entries: [RosterEntry]) -> String {
        entries.map { $0.encoded.base64EncodedString() }.joined(separator: "\n")
    }
}

extension Vault {
    /// The passphrase's keys as this (personal) vault derives them, checked against its verifier,
    /// and the parameters they were derived with: a shared vault's member secrets are sealed under
    /// them, so the one passphrase opens both.
    ///
    /// - Throws: `wrongPassphrase`, `kdfDowngrade`, or `notAVault`.
    public nonisolated func passphraseKeys(_ passphrase: SecureBuffer) throws -> (keys: PassphraseKeys, kdf: KDFParameters) {
        guard let wrapping = try database.read(VaultDatabase.currentKeystoreWrapping) else {
            throw CoreError.notAVault(path: database.path, reason: "it has no keystore")
        }
        try wrapping.kdf.checkStrength()
        let keys = try PassphraseKeys(passphrase: passphrase, parameters: wrapping.kdf)
        guard keys.matches(verifier: wrapping.verifier) else { throw CoreError.wrongPassphrase }
        return (keys, wrapping.kdf)
    }
}

extension Vault {
    /// Unlocks a member's copy of a shared vault with the person's passphrase (architecture §17).
    ///
    /// When a sync brought a newer epoch's key sealed to this person (`meta.share_pending_seal`),
    /// it is opened with their private key, checked against the roster's commitment and kept in
    /// place of the old one; a keystore still wrapped under the old key is wrapped under the new
    /// one here (the member who began the epoch may not have done it yet). Then the key ring's
    /// generations: a later one waiting on the server is taken, and the device that began the
    /// epoch gives the vault new keys (`rekey`).
    /// Returns the person's passphrase keys.
    func unlockShared(passphrase: SecureBuffer) throws -> PassphraseKeys {
        guard let vaultID = sharedVaultID, let stored = try database.meta(.shareMember) else {
            throw CoreError.tampered(what: "this shared vault has no member keys")
        }
        let (secrets, keys, kdf) = try MemberSecrets.openWithKeys(stored, passphrase: passphrase, vaultID: vaultID)
        try unlockShared(secrets, readFrom: stored, keys: keys, kdf: kdf, vaultID: vaultID)
        return keys
    }

    /// `unlockShared` with the member secrets `stored` held when they were read. Another process
    /// (a screen, a sync's session taking a new epoch) may take a new epoch's key meanwhile: it
    /// wraps the keystore under it, stores the new secrets, then may give the vault new keys. What
    /// was read is then one epoch behind: it meets a keystore it does not open (`wrongPassphrase`),
    /// or, half-way through taking the same epoch, one re-keyed under it (its write finds the
    /// session stale: `locked`). The secrets stored now are tried once.
    func unlockShared(_ secrets: MemberSecrets, readFrom stored: String, keys: PassphraseKeys, kdf: KDFParameters,
                      vaultID: SharedVaultID) throws {
        do {
            try unlockShared(secrets, keys: keys, kdf: kdf, vaultID: vaultID)
        } catch let error as CoreError where error == .wrongPassphrase || error == .locked {
            if let now = try database.meta(.shareMember), now != stored {
                try unlockShared(try MemberSecrets.open(now, keys: keys, vaultID: vaultID).secrets, keys: keys, kdf: kdf, vaultID: vaultID)
                return
            }
            guard error == .wrongPassphrase, let server = try restoreMirroredKeystore(epochKey: secrets.epochKey) else { throw error }
            try unlockShared(secrets, keys: keys, kdf: kdf, vaultID: vaultID)
            try putKeptKeystoreBack(over: server)
        } catch let error as CoreError {
            // The person's keys opened the member secrets: a keystore their epoch key does not open
            // (or that fails authentication under it) is the server's doing when the one it
            // replaced opens (issue 41, `restoreMirroredKeystore`).
            guard case .tampered = error, let server = try restoreMirroredKeystore(epochKey: secrets.epochKey) else { throw error }
            try unlockShared(secrets, keys: keys, kdf: kdf, vaultID: vaultID)
            try putKeptKeystoreBack(over: server)
        }
    }

    /// `unlockShared` once the member secrets are open (`keys`: the passphrase's, derived with `kdf`).
    func unlockShared(_ secrets: MemberSecrets, keys: PassphraseKeys, kdf: KDFParameters, vaultID: SharedVaultID) throws {
        let epoch: UInt64
        if let newer = try newerEpoch(than: secrets, vaultID: vaultID) {
            do {
                try unlockKeystore(passphrase: secrets.epochKey)
                StepPause.reach("unlock.shared.opened-older-epoch")
                try changePassphrase(to: newer.epochKey, kdf: MemberSecrets.keystoreKDF(epochKey: newer.epochKey))
            } catch CoreError.wrongPassphrase {
                try unlockKeystore(passphrase: newer.epochKey)  // wrapped under the new key already
            }
            let sealed = try newer.sealed(under: keys, kdf: kdf, vaultID: vaultID)
            try database.write { db in
                try VaultDatabase.setMeta(.shareMember, sealed, in: db)
                try VaultDatabase.setMeta(.shareEpoch, String(newer.epoch), in: db)
                try VaultDatabase.setMeta(.sharePendingSeal, nil, in: db)
            }
            epoch = newer.epoch
        } else {
            try unlockKeystore(passphrase: secrets.epochKey)
            epoch = secrets.epoch
        }
        // Before the generations: signing again what someone who left signed needs the signer.
        signItems(as: secrets)
        member?.keys.wrappingKey.wipe()
        member = (keys.copied(), epoch)
        try takeGenerations(epoch: epoch)
    }

    /// Every item version this session writes is signed as the member `secrets` belongs to
    /// (`ItemSignature`); a new copy (`share create`, `share join`) is unlocked without them.
    public func signItems(as secrets: MemberSecrets) {
        guard let vaultID = sharedVaultID else { return }
        session?.signer = ItemSigner(keys: secrets.person, vaultID: vaultID)
    }

    /// After unlocking: a keystore of a later generation that the server sent and that waits
    /// beside this device's own change is taken now (its items open at once; the next sync
    /// merges the two records); the epoch this device began gets its new keys.
    private func takeGenerations(epoch: UInt64) throws {
        let session = try unlockedSession()
        // What a lagging device took in while locked is checked here (`absorbKeystore` for the rest).
        guard UInt64(session.ring.generation) <= epoch else {
            lock()
            throw CoreError.tampered(what: "the keystore claims key generation \(session.ring.generation), beyond the roster's epoch \(epoch)")
        }
        if let waiting = try database.read({ db in
            try VaultDatabase.pendingChange(.keystores, CollectionName.keystoreID, source: .remote, in: db)
                .map { try VaultDatabase.decodeStored(KeystoreRecord.self, $0.record) }
        }), !waiting.isDeleted {
            _ = try absorbKeystore(waiting, into: session)
        }
        if let rekey = try database.meta(.shareRekey).flatMap(UInt64.init), epoch >= rekey {
            if try beganByThisPerson(epoch), epoch <= UInt64(UInt32.max), session.ring.generation < UInt32(epoch) {
                try self.rekey(to: UInt32(epoch))
            } else {
                try database.setMeta(.shareRekey, nil)  // another member began it (after ours reached nobody)
            }
        }
        try signAgainWhatFormerMembersSigned()
    }

    /// Whether the roster entry that began `epoch` was signed by the person this copy belongs to.
    private func beganByThisPerson(_ epoch: UInt64) throws -> Bool {
        guard let person = try database.meta(.sharePerson) else { return false }
        return try verifiedRoster().first(where: { $0.epoch == epoch })?.author == person
    }

    /// The secrets of the epoch a pending seal brings, if it is newer than `secrets`' and opens
    /// to the key the verified roster committed to; nil when there is none (or it is stale).
    private func newerEpoch(than secrets: MemberSecrets, vaultID: SharedVaultID) throws -> MemberSecrets? {
        guard let pending = try database.meta(.sharePendingSeal) else { return nil }
        let parts = pending.split(separator: " ")
        guard parts.count == 2, let epoch = UInt64(parts[0]), let sealed = Data(base64Encoded: String(parts[1])) else { return nil }
        guard epoch > secrets.epoch else {
            // Fetched by a sync that read the epoch before another process took this one: kept,
            // every sync would find "a newer epoch" the session already holds.
            try dropPendingSeal(ifStill: pending)
            return nil
        }
        guard case .success(let state) = RosterChain.verify(entries: try verifiedRoster(), vaultID: vaultID), state.epoch == epoch else {
            return nil
        }
        // A seal that fails is forgotten, so the next sync fetches it again (`RosterStep.fetchNewerSeal`):
        // kept, one bad answer of the server would have refused every later unlock (issue 41, finding 5).
        func refuse(_ what: String) throws -> Never {
            try dropPendingSeal(ifStill: pending)
            throw CoreError.tampered(what: "\(what); it is fetched again at the next sync")
        }
        let key: SecureBuffer
        do {
            key = try EpochSeal.open(sealed, epoch: epoch, in: vaultID, with: secrets.person)
        } catch {
            try refuse("the new key sealed to you for this shared vault")
        }
        guard EpochCommitment.matches(state.epochCommitment, epoch: epoch, key: key) else {
            try refuse("the new key sealed to you is not the one the roster committed to")
        }
        return MemberSecrets(epoch: epoch, epochKey: key, person: secrets.person)
    }

    /// Forgets the pending seal if it is still `pending` (a sync may have stored a newer one since).
    private func dropPendingSeal(ifStill pending: String) throws {
        try database.write { db in
            let now = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [MetaKey.sharePendingSeal.rawValue])
            if now == pending { try VaultDatabase.setMeta(.sharePendingSeal, nil, in: db) }
        }
    }
}

extension Vault {
    /// After the person's passphrase changed on their personal vault: this copy's member secrets
    /// sealed under the new one (`keys`, derived with `kdf`). False when `old` does not open them
    /// (they were sealed under another passphrase: nothing is changed).
    public nonisolated func resealMemberSecrets(openedWith old: SecureBuffer, under keys: PassphraseKeys,
                                                kdf: KDFParameters) throws -> Bool {
        guard let vaultID = sharedVaultID, let stored = try database.meta(.shareMember) else { return false }
        let secrets: MemberSecrets
        do {
            secrets = try MemberSecrets.open(stored, passphrase: old, vaultID: vaultID)
        } catch CoreError.wrongPassphrase {
            return false
        }
        try database.setMeta(.shareMember, try secrets.sealed(under: keys, kdf: kdf, vaultID: vaultID))
        return true
    }
}

extension Vault {
    /// The stable items whose last version no one in `members` signed: a version signed by
    /// someone who left, or unsigned (written before signatures, by anyone). Kinto gives `write`
    /// on a record to whoever wrote it last, so these are the item records a revocation
    /// rewrites: O(what they wrote), not O(items) (issue 42).
    /// `includingUnsigned` false: only versions someone who left signed.
    public nonisolated func itemIDs(signedByNoneOf members: Set<String>, includingUnsigned: Bool = true) throws -> [String] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, signature FROM items").compactMap { row in
                guard let signer = ItemSignature.claimedSigner(of: row["signature"]) else { return includingUnsigned ? row["id"] : nil }
                return members.contains(signer) ? nil : row["id"] as String
            }
        }
    }
}

extension Vault {
    /// Whether this copy holds the key of the newest epoch its verified roster knows (no newer
    /// seal waits to be opened): every member wraps the keystore under that key, so a keystore
    /// this copy cannot open is not a member's.
    func holdsTheNewestEpochKey() throws -> Bool {
        guard let vaultID = sharedVaultID, try database.meta(.sharePendingSeal) == nil,
              let held = try database.meta(.shareEpoch).flatMap(UInt64.init),
              case .success(let state) = RosterChain.verify(entries: try verifiedRoster(), vaultID: vaultID) else { return false }
        return held >= state.epoch
    }
}
