import _CryptoExtras
import Crypto
import Foundation

/// Signatures as the SSH wire carries them (RFC 8332, RFC 5656 §3.1.2, RFC 8709 §6).
extension SSHKey {
    /// The flags of a SIGN_REQUEST that choose RSA's hash (draft-miller-ssh-agent §4.5.1).
    public static let rsaSHA256Flag: UInt32 = 2
    public static let rsaSHA512Flag: UInt32 = 4

    /// The signature blob for `data`. An RSA key signs with SHA-512 when `flags` asks for it, else
    /// SHA-256 when asked; a request for neither (the SHA-1 `ssh-rsa` signature) is refused.
    public func signature(for data: Data, flags: UInt32) throws -> Data {
        var writer = SSHWireWriter()
        switch material {
        case .ed25519(let key):
            writer.text(type.algorithm)
            writer.string(try key.signature(for: data))
        case .ecdsa(let key):
            let raw = try key.signature(for: data).rawRepresentation
            var numbers = SSHWireWriter()
            numbers.mpint(raw.prefix(32))
            numbers.mpint(raw.suffix(32))
            writer.text(type.algorithm)
            writer.string(numbers.data)
        case .rsa(let key, _):
            let signature: _RSA.Signing.RSASignature
            if flags & Self.rsaSHA512Flag != 0 {
                writer.text("rsa-sha2-512")
                signature = try key.signature(for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5)
            } else if flags & Self.rsaSHA256Flag != 0 {
                writer.text("rsa-sha2-256")
                signature = try key.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
            } else {
                throw SSHKeyError.unsupported("an RSA signature with SHA-1 (ssh-rsa) was asked for")
            }
            writer.string(signature.rawRepresentation)
        }
        return writer.data
    }
}
