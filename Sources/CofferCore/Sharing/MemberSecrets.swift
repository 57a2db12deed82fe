import Foundation

/// What a member's copy of a shared vault keeps sealed under their own passphrase (architecture
/// §17, `meta.share_member`): the current epoch's key, which opens the vault's keystore, and the
/// person's two private keys, which sign roster entries and open the epoch keys sealed to them.
///
/// The passphrase's keys are derived with the member's personal vault's parameters (`kdf`), so
/// the passphrase that opens the personal vault opens this one.
public struct MemberSecrets: Sendable {
    /// The Argon2id parameters a shared keystore is wrapped with under an epoch's key (256 random
    /// bits: the floor's stretching adds nothing but keeps one rule for every keystore): at the
    /// floor, with a salt derived from the key, so every member device that wraps it under the
    /// same epoch makes the same wrapping keys, and any one opens what another wrapped (§17).
    public static func keystoreKDF(epochKey: SecureBuffer) -> KDFParameters {
        let salt = HKDFSHA256.derive(inputKey: epochKey, info: "coffer/v1/epoch-keystore-salt", length: Argon2id.saltLength)
        return KDFParameters(memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations,
                             salt: salt.withUnsafeBytes { Data($0) }.base64EncodedString())
    }

    public let epoch: UInt64
    public let epochKey: SecureBuffer
    public let person: PersonKeys

    public init(epoch: UInt64, epochKey: SecureBuffer, person: PersonKeys) {
        precondition(epochKey.count == EpochCommitment.keyLength)
        self.epoch = epoch
        self.epochKey = epochKey
        self.person = person
    }

    static let collection = "member"
    static let version: UInt8 = 1
    /// version, epoch (8 bytes, big-endian), the epoch key, the signing and the sealing private key.
    static let plaintextLength = 1 + 8 + 3 * 32

    /// The sealed form kept in `meta`: the KDF parameters and verifier in the clear, the rest sealed.
    struct Stored: Codable {
        var kdf: KDFParameters
        var verifier: String
        var sealed: String
    }

    /// `meta.share_member`'s JSON: these secrets sealed under `keys` (derived with `kdf`), bound to the vault.
    public func sealed(under keys: PassphraseKeys, kdf: KDFParameters, vaultID: SharedVaultID) throws -> String {
        let plaintext = SecureBuffer(count: Self.plaintextLength)
        plaintext.withUnsafeMutableBytes { out in
            out[0] = Self.version
            withUnsafeBytes(of: epoch.bigEndian) { out.baseAddress!.advanced(by: 1).copyMemory(from: $0.baseAddress!, byteCount: 8) }
            let (signing, sealing) = person.privateKeys
            for (offset, key) in [(9, epochKey), (41, signing), (73, sealing)] {
                key.withUnsafeBytes { out.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: 32) }
            }
        }
        let box = try plaintext.withUnsafeBytes {
            try Envelope.seal($0, key: keys.wrappingKey, collection: Self.collection, id: vaultID.bucket)
        }
        let stored = Stored(kdf: kdf, verifier: keys.verifier, sealed: box.base64EncodedString())
        return String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
    }

    /// Opens `meta.share_member` with `passphrase`.
    ///
    /// - Throws: `wrongPassphrase`, `kdfDowngrade`, or `tampered`.
    public static func open(_ json: String, passphrase: SecureBuffer, vaultID: SharedVaultID) throws -> MemberSecrets {
        try openWithKeys(json, passphrase: passphrase, vaultID: vaultID).secrets
    }

    /// `open`, with the passphrase's keys and parameters, to seal newer secrets in their place.
    public static func openWithKeys(_ json: String, passphrase: SecureBuffer, vaultID: SharedVaultID) throws
        -> (secrets: MemberSecrets, keys: PassphraseKeys, kdf: KDFParameters) {
        let stored = try decodeStored(json)
        try stored.kdf.checkStrength()
        let keys = try PassphraseKeys(passphrase: passphrase, parameters: stored.kdf)
        return (try open(json, keys: keys, vaultID: vaultID).secrets, keys, stored.kdf)
    }

    /// `open` with the passphrase's keys already derived (by an unlock of the personal vault, whose
    /// parameters these are): no Argon2id. Also the parameters they were sealed with.
    ///
    /// - Throws: `wrongPassphrase` when `keys` are not the ones they were sealed under, or `tampered`.
    public static func open(_ json: String, keys: PassphraseKeys, vaultID: SharedVaultID) throws
        -> (secrets: MemberSecrets, kdf: KDFParameters) {
        let stored = try decodeStored(json)
        guard keys.matches(verifier: stored.verifier), let box = Data(base64Encoded: stored.sealed) else {
            throw CoreError.wrongPassphrase
        }
        var plaintext = try Envelope.open(box, key: keys.wrappingKey, collection: collection, id: vaultID.bucket)
        defer { wipe(&plaintext) }
        guard plaintext.count == plaintextLength, plaintext.first == version else {
            throw CoreError.tampered(what: "this shared vault's member keys are malformed")
        }
        let secrets = try plaintext.withUnsafeBytes { raw in
            func key(at offset: Int) -> SecureBuffer { SecureBuffer(copying: UnsafeRawBufferPointer(rebasing: raw[offset..<offset + 32])) }
            let epoch = raw[1..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let person = try PersonKeys(signingKey: key(at: 41), sealingKey: key(at: 73))
            return MemberSecrets(epoch: epoch, epochKey: key(at: 9), person: person)
        }
        return (secrets, stored.kdf)
    }

    /// The verifier of the passphrase `json` is sealed under (not secret: stored in the clear);
    /// nil when `json` is malformed.
    public static func verifier(of json: String) -> String? {
        try? decodeStored(json).verifier
    }

    private static func decodeStored(_ json: String) throws -> Stored {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(json.utf8)),
              Data(base64Encoded: stored.sealed) != nil else {
            throw CoreError.tampered(what: "this shared vault's member keys are malformed")
        }
        return stored
    }
}
