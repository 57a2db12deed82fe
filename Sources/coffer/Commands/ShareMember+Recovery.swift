import CofferCore
import CofferSync
import Foundation

/// A shared vault's recovery kit (architecture §17, "Recovery kit"): it holds the member who made
/// it, so `recover` makes that member's copy again on a new machine beside their personal vault.
extension ShareMember {
    /// What this member's kit seals: the vault and their keys, made only while they are a member.
    func recoveryPayload(passphrase: SecureBuffer) async throws -> SharedRecoveryPayload {
        guard let secrets = try vault.memberSecrets(passphrase: passphrase) else { throw CoreError.wrongPassphrase }
        let entries = try await AccountOptions.mapped { try await refreshRoster() }
        let state = try SharedRoster.verify(entries, vaultID: vaultID, continuing: [], vault: name)
        guard state.members[secrets.person.id] != nil else { throw RosterRefusal(vault: name, reason: .removed) }
        return SharedRecoveryPayload(server: account.server.absoluteString, user: account.user, vaultID: vaultID, name: name,
                                     person: secrets.person)
    }

    /// `recover` with a shared vault's kit, run on the person's personal vault (this member, with
    /// its account): the roster verified from entry 0 with the kit's person still a member, the
    /// epoch's key sealed to them, and their copy made at `path` under the personal passphrase.
    func recoverCopy(from payload: SharedRecoveryPayload, at path: String, passphrase: SecureBuffer) async throws -> Vault {
        guard payload.user == account.user, SyncAccount.normalizedServer(payload.server) == account.server else {
            throw UsageError("This kit belongs to the account \(TerminalText.name(payload.user)) on \(TerminalText.name(payload.server)); "
                             + "\(vault.database.path) syncs with \(account.user) on \(account.server.absoluteString). "
                             + "Recover the personal vault of that account first (its own kit).")
        }
        return try await copyFromServer(payload.vaultID, named: payload.name, as: payload.person, recorded: nil, at: path,
                                        sealedUnder: try vault.passphraseKeys(passphrase))
    }

    /// This person's copy of a shared vault made from the server (`recover`, `share join NAME`):
    /// the roster verified from entry 0 with `person` a member, the newest epoch key sealed to
    /// them that opens the keystore (`recorded` when none does), and the copy made at `path`.
    func copyFromServer(_ vaultID: SharedVaultID, named name: String, as person: PersonKeys, recorded: MemberSecrets?,
                        at path: String, sealedUnder passphrase: (keys: PassphraseKeys, kdf: KDFParameters)) async throws -> Vault {
        let shared = client(bucket: vaultID.bucket)
        let served = try await AccountOptions.mapped {
            do {
                return try await SharedRoster.served(by: shared, vault: name)
            } catch KintoError.unauthorized {
                throw RosterRefusal(vault: name, reason: .refusedByServer)  // the account itself is the personal vault's
            }
        }
        let state = try SharedRoster.verify(served, vaultID: vaultID, continuing: [], vault: name)
        guard state.members[person.id] != nil else { throw RosterRefusal(vault: name, reason: .removed) }
        let keystore = try await AccountOptions.mapped { try await Self.keystore(shared, name: name) }
        let secrets: MemberSecrets
        do {
            secrets = try await AccountOptions.mapped {
                try await Self.epochSecrets(of: person, roster: served, keystore: keystore, client: shared, vault: name)
            }
        } catch let refusal as RosterRefusal {
            guard let recorded else { throw refusal }
            secrets = recorded
        }
        return try await makeCopy(at: path, of: vaultID, named: name, secrets: secrets, sealedUnder: passphrase,
                                  roster: served, keystore: keystore)
    }

    /// The newest epoch's key sealed to `person` that opens `keystore`: the current epoch's, or an
    /// earlier one's while no member has wrapped the keystore under the current key yet (a revoker
    /// that stopped half-way). Each key is checked against the entry that began its epoch.
    static func epochSecrets(of person: PersonKeys, roster: [RosterEntry], keystore: KeystoreRecord, client: KintoClient,
                             vault: String) async throws -> MemberSecrets {
        var beginnings: [UInt64: Data] = [:]
        for entry in roster where beginnings[entry.epoch] == nil { beginnings[entry.epoch] = entry.epochCommitment }
        for epoch in beginnings.keys.sorted(by: >).prefix(4) {
            guard let commitment = beginnings[epoch],
                  let key = try await SharedRoster.openSeal(epoch: epoch, committedTo: commitment, in: roster[0].vaultID, with: person,
                                                            client: client, vault: vault),
                  (try? KeystoreSealing.open(keystore, passphrase: key)) != nil else { continue }
            return MemberSecrets(epoch: epoch, epochKey: key, person: person)
        }
        throw RosterRefusal(vault: vault, reason: .malformed("no key sealed to you opens its keystore."))
    }
}
