import _CryptoExtras
import Crypto
import Foundation

/// An SSH private key Coffer signs with: Ed25519, ECDSA P-256 or RSA (2048–8192 bits), with its
/// comment. It is made from the fields OpenSSH writes for a private key — in a key file's private
/// section and in an agent's ADD_IDENTITY — and written back the same way.
public struct SSHKey: Sendable {
    enum Material: Sendable {
        case ed25519(Curve25519.Signing.PrivateKey)
        case ecdsa(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey, RSAKeyNumbers)
    }

    let material: Material
    public var comment: String

    init(_ material: Material, comment: String) {
        self.material = material
        self.comment = comment
    }

    public var type: SSHKeyType {
        switch material {
        case .ed25519: return .ed25519
        case .ecdsa: return .ecdsa
        case .rsa: return .rsa
        }
    }

    /// A new key; `comment` is what `ssh-add -l` shows beside it.
    public static func generate(_ type: SSHKeyType, comment: String) throws -> SSHKey {
        switch type {
        case .ed25519: return SSHKey(.ed25519(Curve25519.Signing.PrivateKey()), comment: comment)
        case .ecdsa: return SSHKey(.ecdsa(P256.Signing.PrivateKey()), comment: comment)
        case .rsa:
            let key = try _RSA.Signing.PrivateKey(keySize: .init(bitCount: SSHKeyType.generatedRSABits))
            return SSHKey(.rsa(key, try RSAKeyNumbers(pkcs1: key.derRepresentation)), comment: comment)
        }
    }

    /// The public key as the wire carries it (RFC 4253 §6.6, RFC 5656 §3.1, RFC 8709 §4).
    public var publicKeyBlob: Data {
        var writer = SSHWireWriter()
        writer.text(type.algorithm)
        switch material {
        case .ed25519(let key):
            writer.string(key.publicKey.rawRepresentation)
        case .ecdsa(let key):
            writer.text(SSHKeyType.curveName)
            writer.string(key.publicKey.x963Representation)
        case .rsa(_, let numbers):
            writer.mpint(numbers.e)
            writer.mpint(numbers.n)
        }
        return writer.data
    }

    /// The `authorized_keys` line: type, base64 blob, comment.
    public var authorizedKey: String {
        let line = type.algorithm + " " + publicKeyBlob.base64EncodedString()
        return comment.isEmpty ? line : line + " " + comment
    }

    /// What `ssh-keygen -l` and `ssh-add -l` print: `SHA256:` and the unpadded base64 digest.
    public var fingerprint: String { Self.fingerprint(ofBlob: publicKeyBlob) }

    public static func fingerprint(ofBlob blob: Data) -> String {
        let digest = Data(SHA256.hash(data: blob)).base64EncodedString()
        return "SHA256:" + digest.replacingOccurrences(of: "=", with: "")
    }

    /// The key's size in bits, as `ssh-keygen -l` gives it.
    public var bits: Int {
        switch material {
        case .ed25519, .ecdsa: return 256
        case .rsa(let key, _): return key.keySizeInBits
        }
    }
}
