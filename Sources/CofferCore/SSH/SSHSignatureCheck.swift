import _CryptoExtras
import Crypto
import Foundation

/// Whether an SSH signature blob is a valid signature by a public key blob, for the host keys
/// OpenSSH servers use: Ed25519, ECDSA P-256, and RSA with SHA-2. Any other type, or bytes that do
/// not parse, is "not valid": the caller refuses what it cannot check.
public enum SSHSignatureCheck {
    public static func isValid(signature: Data, by publicKey: Data, for data: Data) -> Bool {
        do {
            var key = SSHWireReader(publicKey)
            var signed = SSHWireReader(signature)
            let keyType = try key.text()
            let algorithm = try signed.text()
            let bytes = try signed.string()
            try signed.expectEnd()
            switch (keyType, algorithm) {
            case ("ssh-ed25519", "ssh-ed25519"):
                let publicKey = try Curve25519.Signing.PublicKey(rawRepresentation: try key.string())
                try key.expectEnd()
                return publicKey.isValidSignature(bytes, for: data)
            case ("ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256"):
                guard try key.text() == "nistp256" else { return false }
                let publicKey = try P256.Signing.PublicKey(x963Representation: try key.string())
                try key.expectEnd()
                var numbers = SSHWireReader(bytes)
                let r = try numbers.mpint(), s = try numbers.mpint()
                try numbers.expectEnd()
                guard r.count <= 32, s.count <= 32 else { return false }
                let raw = Data(count: 32 - r.count) + r + Data(count: 32 - s.count) + s
                return publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: raw), for: data)
            case ("ssh-rsa", "rsa-sha2-256"), ("ssh-rsa", "rsa-sha2-512"):
                let e = try key.mpint(), n = try key.mpint()
                try key.expectEnd()
                let publicKey = try _RSA.Signing.PublicKey(n: n, e: e)
                let rsa = _RSA.Signing.RSASignature(rawRepresentation: bytes)
                return algorithm == "rsa-sha2-256"
                    ? publicKey.isValidSignature(rsa, for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
                    : publicKey.isValidSignature(rsa, for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5)
            default:
                return false
            }
        } catch {
            return false
        }
    }
}
