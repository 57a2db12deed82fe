import Crypto
import Foundation

/// AES-256-GCM sealing with a format version and associated data that binds where a ciphertext belongs.
///
/// Layout: `version (1 byte) | nonce (12) | ciphertext | tag (16)`. The associated data is
/// `coffer/v<version>/<collection>/<id>`, so a ciphertext moved to another id or collection fails to open.
public enum Envelope {
    public static let version: UInt8 = 1
    static let overhead = 1 + 12 + 16

    public static func associatedData(collection: String, id: String) -> Data {
        Data("coffer/v\(version)/\(collection)/\(id)".utf8)
    }

    public static func seal<Plaintext: DataProtocol>(_ plaintext: Plaintext, key: SecureBuffer,
                                                      collection: String, id: String) throws -> Data {
        try seal(plaintext, symmetricKey: key.withUnsafeBytes { SymmetricKey(data: $0) }, collection: collection, id: id)
    }

    public static func seal<Plaintext: DataProtocol>(_ plaintext: Plaintext, symmetricKey: SymmetricKey,
                                                      collection: String, id: String) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: symmetricKey,
                                   authenticating: associatedData(collection: collection, id: id))
        guard let combined = box.combined else { throw CoreError.storage(reason: "AES-GCM produced no ciphertext") }
        var sealed = Data([version])
        sealed.append(combined)
        return sealed
    }

    /// Opens a sealed envelope; any change to any byte, or a wrong id, throws `CoreError.tampered`.
    /// The caller owns the returned plaintext and should wipe it when done if it holds keys.
    public static func open(_ sealed: Data, key: SecureBuffer, collection: String, id: String) throws -> Data {
        try open(sealed, symmetricKey: key.withUnsafeBytes { SymmetricKey(data: $0) }, collection: collection, id: id)
    }

    public static func open(_ sealed: Data, symmetricKey: SymmetricKey, collection: String, id: String) throws -> Data {
        guard sealed.count >= overhead, sealed.first == version else {
            throw CoreError.tampered(what: "\(collection) record \(id) has an unknown envelope format")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed.dropFirst())
            return try AES.GCM.open(box, using: symmetricKey,
                                    authenticating: associatedData(collection: collection, id: id))
        } catch {
            throw CoreError.tampered(what: "\(collection) record \(id) failed authentication")
        }
    }
}
