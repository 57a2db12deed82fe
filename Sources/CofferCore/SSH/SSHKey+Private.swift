import _CryptoExtras
import Crypto
import Foundation

/// The private key's own fields, as OpenSSH writes them after the key's type name in a key file
/// and in ADD_IDENTITY (draft-miller-ssh-agent §4.2.3): every public part is checked against the
/// private one, so a file or a client cannot pair one key's name with another's secret.
extension SSHKey {
    /// Reads the type name, the key's fields and the comment.
    public static func read(from reader: inout SSHWireReader) throws(SSHKeyError) -> SSHKey {
        let name = try reader.text()
        guard let type = SSHKeyType(algorithm: name) else {
            throw .unsupported("the type “\(name.prefix(40))” is none of ssh-ed25519, ecdsa-sha2-nistp256, ssh-rsa")
        }
        let material: Material
        switch type {
        case .ed25519:
            let publicKey = try reader.string()
            let secret = try reader.string()
            // OpenSSH keeps the 32-byte seed followed by the public key.
            guard publicKey.count == 32, secret.count == 64 else { throw .malformed("an Ed25519 key has the wrong length") }
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: secret.prefix(32)) else {
                throw .malformed("an Ed25519 seed is unusable")
            }
            guard key.publicKey.rawRepresentation == publicKey, secret.suffix(32) == publicKey else { throw .mismatch }
            material = .ed25519(key)
        case .ecdsa:
            let curve = try reader.text()
            guard curve == SSHKeyType.curveName else { throw .unsupported("ECDSA keys must be on nistp256") }
            let point = try reader.string()
            let scalar = try reader.mpint()
            guard scalar.count <= 32, let key = try? P256.Signing.PrivateKey(rawRepresentation: Data(count: 32 - scalar.count) + scalar) else {
                throw .malformed("an ECDSA private number is unusable")
            }
            guard key.publicKey.x963Representation == point else { throw .mismatch }
            material = .ecdsa(key)
        case .rsa:
            let n = try reader.mpint(), e = try reader.mpint(), d = try reader.mpint()
            let iqmp = try reader.mpint(), p = try reader.mpint(), q = try reader.mpint()
            let bits = n.count * 8 - (n.first.map { $0.leadingZeroBitCount } ?? 8)
            guard bits >= SSHKeyType.minimumRSABits, bits <= SSHKeyType.maximumRSABits else {
                throw .unsupported("an RSA key of \(bits) bits (Coffer takes \(SSHKeyType.minimumRSABits) to \(SSHKeyType.maximumRSABits))")
            }
            // Sizes bounded before the library sees them: a public exponent of a few bytes (65537
            // in practice), every other number no longer than the modulus.
            guard e.count <= 8, [d, iqmp, p, q].allSatisfy({ $0.count <= n.count }) else {
                throw .malformed("the RSA numbers have impossible sizes")
            }
            // The library checks p·q = n and the exponents before it makes the key.
            guard let key = try? _RSA.Signing.PrivateKey(n: n, e: e, d: d, p: p, q: q) else {
                throw .malformed("the RSA numbers do not make a key")
            }
            material = .rsa(key, RSAKeyNumbers(n: n, e: e, d: d, iqmp: iqmp, p: p, q: q))
        }
        return SSHKey(material, comment: try reader.text())
    }

    /// The type name, the key's fields and the comment: what `read(from:)` reads.
    public func write(to writer: inout SSHWireWriter) {
        writer.text(type.algorithm)
        switch material {
        case .ed25519(let key):
            writer.string(key.publicKey.rawRepresentation)
            writer.string(key.rawRepresentation + key.publicKey.rawRepresentation)
        case .ecdsa(let key):
            writer.text(SSHKeyType.curveName)
            writer.string(key.publicKey.x963Representation)
            writer.mpint(key.rawRepresentation)
        case .rsa(_, let numbers):
            for number in [numbers.n, numbers.e, numbers.d, numbers.iqmp, numbers.p, numbers.q] { writer.mpint(number) }
        }
        writer.text(comment)
    }
}
