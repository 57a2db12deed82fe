import CofferCore
import Foundation

/// A person's vault files as `share create` leaves them: `vault.db` (personal) and `family.db`
/// beside it (shared: its keystore under the epoch key, its member secrets sealed under the keys
/// the personal passphrase derives with the personal vault's parameters, its roster, and the
/// personal vault's path), each with items. Made without a server.
struct PersonsVaults {
    static let passphrase = "correct horse"
    static let kdf = KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: 3)

    let personal: String
    let family: String

    static func make(in directory: URL, personalItems: [Item], familyItems: [Item],
                     familyPassphrase: String = PersonsVaults.passphrase) async throws -> PersonsVaults {
        let personal = directory.appendingPathComponent("vault.db").path
        let family = directory.appendingPathComponent("family.db").path
        let vault = try Vault.create(at: personal, passphrase: buffer(passphrase), kdf: kdf)
        try await vault.addAll(personalItems)
        await vault.lock()
        // Another passphrase, to test a vault the kept keys do not open: its own parameters.
        let (keys, sealingKDF) = familyPassphrase == passphrase
            ? try vault.passphraseKeys(buffer(passphrase))
            : (try PassphraseKeys(passphrase: buffer(familyPassphrase), parameters: kdf), kdf)

        let vaultID = SharedVaultID.random()
        let epochKey = SecureBuffer.random(count: EpochCommitment.keyLength)
        let person = PersonKeys()
        let entry = try RosterChain.creation(of: vaultID, name: "Ann", account: "ann", by: person, epochKey: epochKey)
        let secrets = MemberSecrets(epoch: 1, epochKey: epochKey, person: person)
        let shared = try Vault.create(at: family, passphrase: epochKey, kdf: kdf, meta: [
            .sharePersonalVault: URL(fileURLWithPath: personal).standardizedFileURL.path,
            .shareVault: vaultID.bucket, .shareName: "family", .sharePerson: person.id, .shareEpoch: "1",
            .shareMember: try secrets.sealed(under: keys, kdf: sealingKDF, vaultID: vaultID),
            .rosterEntries: Vault.rosterMeta([entry]),
        ])
        try await shared.addAll(familyItems)
        await shared.lock()
        return PersonsVaults(personal: personal, family: family)
    }

    static func buffer(_ text: String) -> SecureBuffer { SecureBuffer(copying: Array(text.utf8)) }
}
