import CofferCore
import CofferSync
import Foundation

extension ShareMember {
    /// `share join NAME`: this device's copy of a shared vault its person is a member of, from
    /// the member secrets another of their devices recorded in the personal account
    /// (`SharedCopies`); the personal passphrase opens them.
    func copyOwnShare(named name: String, global: GlobalOptions) async throws {
        guard SharedVaultName.isValid(name) else {
            throw UsageError("A shared vault's name is 1 to \(SharedVaultName.limit) letters, digits, - or _.")
        }
        // The names are sealed under the passphrase (`SealedShareName`): asked first.
        let passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(global.vaultPath): ")
        let personalKeys = try vault.passphraseKeys(passphrase).keys
        let copies = try await AccountOptions.mapped { try await SharedCopies.list(with: client(bucket: "default"), opening: personalKeys) }
        guard let copy = copies.first(where: { $0.name == name }) else {
            throw UsageError("None of your devices recorded a shared vault named \u{201C}\(name)\u{201D}; `coffer share list` names those they did.")
        }
        let path = SharedVaultName.path(of: name, besidePersonalVault: vault.database.path)
        if FileManager.default.fileExists(atPath: path) { throw CoreError.vaultExists(path: path) }
        let (secrets, keys, kdf) = try MemberSecrets.openWithKeys(copy.member, passphrase: passphrase, vaultID: copy.vaultID)
        // The recorded key may be an older epoch's: the current one is sealed to the same person.
        let made = try await copyFromServer(copy.vaultID, named: name, as: secrets.person, recorded: secrets, at: path,
                                            sealedUnder: (keys, kdf))
        Terminal.write("This device has its copy of \u{201C}\(name)\u{201D}: \(path) holds \(try made.database.status().items) item(s).\n")
    }

    /// The name this person's copy of the vault `grant` admits them to goes by: the inviter's,
    /// or, when a file here or a copy the person's account records is another vault of that name,
    /// the first of `NAME-2`, `NAME-3`… free of both (two people's vaults may be named alike).
    func freeName(for grant: ShareInvitation.Grant, opening keys: PassphraseKeys) async throws -> String {
        let recorded = try await AccountOptions.mapped { try await SharedCopies.list(with: client(bucket: "default"), opening: keys) }
        let taken = Set(recorded.filter { $0.vaultID != grant.vaultID }.map(\.name))
        for number in 1...99 {
            let name = number == 1 ? grant.name : "\(grant.name.prefix(SharedVaultName.limit - 3))-\(number)"
            let path = SharedVaultName.path(of: name, besidePersonalVault: vault.database.path)
            if !taken.contains(name), !FileManager.default.fileExists(atPath: path) { return name }
        }
        throw UsageError("Every name from \u{201C}\(grant.name)\u{201D} to \u{201C}\(grant.name)-99\u{201D} is taken here.")
    }
}
