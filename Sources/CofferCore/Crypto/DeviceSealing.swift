import Crypto
import Foundation

/// The cryptography of devices and messages (architecture §9), as pure functions of the vault key.
///
/// Three keys come from the vault key through HKDF: one seals this device's private key, one the
/// device records' boxes, one is the HPKE pre-shared key. A message is HPKE auth_psk: only a
/// device holding the recipient's private key opens it, only the sender's private key makes it,
/// and only a device of this vault (the PSK) can be either. The info binds the message id and
/// both device ids, so a ciphertext moved to another record does not open.
package enum DeviceSealing {
    static let suite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly
    private static let privateKeyInfo = "coffer/v1/device-private-key"
    private static let boxInfo = "coffer/v1/device-box"
    private static let pskInfo = "coffer/v1/message-psk"
    private static let pskID = Data("coffer/v1/message-psk".utf8)

    private static func key(_ vaultKey: SecureBuffer, _ info: String) -> SymmetricKey {
        HKDFSHA256.derive(inputKey: vaultKey, info: info, length: 32).withUnsafeBytes { SymmetricKey(data: $0) }
    }

    // MARK: This device's private key

    static func sealPrivateKey(_ key: Curve25519.KeyAgreement.PrivateKey, deviceID: String,
                               vaultKey: SecureBuffer) throws -> String {
        try seal(key.rawRepresentation, key: Self.key(vaultKey, privateKeyInfo), associated: deviceID)
    }

    static func openPrivateKey(_ sealed: String, deviceID: String, vaultKey: SecureBuffer) throws -> Curve25519.KeyAgreement.PrivateKey {
        let raw = try open(sealed, key: key(vaultKey, privateKeyInfo), associated: deviceID, what: "this device's key")
        do {
            return try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw)
        } catch {
            throw CoreError.tampered(what: "this device's key")
        }
    }

    // MARK: Device records

    package static func record(id: String, name: String, publicKey: Curve25519.KeyAgreement.PublicKey,
                       vaultKey: SecureBuffer) throws -> DeviceRecord {
        let encodedKey = publicKey.rawRepresentation.base64EncodedString()
        let box = try DeviceJSON.encoder.encode(DeviceBox(name: name, publicKey: encodedKey))
        return DeviceRecord(id: id, publicKey: encodedKey, capabilities: DeviceRecord.currentCapabilities,
                            box: try seal(box, key: key(vaultKey, boxInfo), associated: id), lastModified: nil)
    }

    /// The device's name if its box opens and holds the same public key, else nil (unverified).
    package static func verifiedName(of record: DeviceRecord, vaultKey: SecureBuffer) -> String? {
        guard let plain = try? open(record.box, key: key(vaultKey, boxInfo), associated: record.id, what: "a device record"),
              let box = try? DeviceJSON.decoder.decode(DeviceBox.self, from: plain),
              box.publicKey == record.publicKey, publicKey(of: record) != nil
        else { return nil }
        return box.name
    }

    package static func publicKey(of record: DeviceRecord) -> Curve25519.KeyAgreement.PublicKey? {
        guard let raw = Data(base64Encoded: record.publicKey) else { return nil }
        return try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw)
    }

    // MARK: Messages

    static func info(id: String, recipient: String, sender: String) -> Data {
        Data("coffer/v1/message\n\(id)\n\(recipient)\n\(sender)".utf8)
    }

    package static func sealMessage(_ content: MessageContent, id: String, to recipient: DeviceRecord, from senderID: String,
                            senderKey: Curve25519.KeyAgreement.PrivateKey, vaultKey: SecureBuffer) throws -> MessageRecord {
        let plain = try DeviceJSON.encoder.encode(content)
        guard plain.count <= MessageContent.maximumBytes else {
            throw CoreError.deviceMessage(reason: "it is \(plain.count) bytes, more than \(MessageContent.maximumBytes)")
        }
        guard let recipientKey = publicKey(of: recipient) else {
            throw CoreError.deviceMessage(reason: "device \(recipient.id) has no valid public key")
        }
        var sender = try HPKE.Sender(recipientKey: recipientKey, ciphersuite: suite,
                                     info: info(id: id, recipient: recipient.id, sender: senderID),
                                     authenticatedBy: senderKey, presharedKey: key(vaultKey, pskInfo),
                                     presharedKeyIdentifier: pskID)
        let ciphertext = try sender.seal(plain)
        return MessageRecord(id: id, recipient: recipient.id, sender: senderID, expires: content.expires,
                             enc: sender.encapsulatedKey.base64EncodedString(), ciphertext: ciphertext.base64EncodedString())
    }

    /// Opens a message addressed to this device; `tampered` for anything that does not
    /// authenticate (a flipped bit, another sender, a ciphertext moved to another id).
    package static func openMessage(_ record: MessageRecord, with privateKey: Curve25519.KeyAgreement.PrivateKey, from sender: DeviceRecord,
                            vaultKey: SecureBuffer) throws -> MessageContent {
        let failure = CoreError.tampered(what: "message \(record.id)")
        guard sender.id == record.sender, let senderKey = publicKey(of: sender),
              let enc = Data(base64Encoded: record.enc), let ciphertext = Data(base64Encoded: record.ciphertext)
        else { throw failure }
        do {
            var recipient = try HPKE.Recipient(privateKey: privateKey, ciphersuite: suite,
                                               info: info(id: record.id, recipient: record.recipient, sender: record.sender),
                                               encapsulatedKey: enc, authenticatedBy: senderKey,
                                               presharedKey: key(vaultKey, pskInfo), presharedKeyIdentifier: pskID)
            let plain = try recipient.open(ciphertext)
            return try DeviceJSON.decoder.decode(MessageContent.self, from: plain)
        } catch {
            throw failure
        }
    }

    // MARK: AES-GCM

    private static func seal(_ plain: Data, key: SymmetricKey, associated: String) throws -> String {
        guard let combined = try AES.GCM.seal(plain, using: key, authenticating: Data(associated.utf8)).combined else {
            throw CoreError.storage(reason: "AES-GCM produced no ciphertext")
        }
        return combined.base64EncodedString()
    }

    private static func open(_ sealed: String, key: SymmetricKey, associated: String, what: String) throws -> Data {
        do {
            guard let combined = Data(base64Encoded: sealed) else { throw CoreError.tampered(what: what) }
            return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key, authenticating: Data(associated.utf8))
        } catch {
            throw CoreError.tampered(what: what)
        }
    }
}
