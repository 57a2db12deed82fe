import Crypto
import Foundation

/// OpenSSH's private key file (`openssh-key-v1`, PROTOCOL.key in OpenSSH's sources): a PEM block
/// around a magic string, the cipher and KDF names, one public key, and a private section that
/// starts with two equal check numbers and ends with padding 1, 2, 3…
///
/// Coffer reads files of one key, unencrypted or protected by a passphrase (bcrypt_pbkdf and
/// AES-CTR, ssh-keygen's default), decrypting in memory only; it writes unencrypted files: the
/// vault is what encrypts the private key field, so a passphrase inside it would only be a second
/// thing to remember.
public enum OpenSSHKeyFile {
    static let magic = Data("openssh-key-v1".utf8) + Data([0])
    static let header = "-----BEGIN OPENSSH PRIVATE KEY-----"
    static let footer = "-----END OPENSSH PRIVATE KEY-----"
    /// Larger than any key file Coffer takes (an 8192-bit RSA file is under 7 KB).
    public static let maximumSize = 64 << 10

    /// The key in `text`, a whole key file; `encrypted` when it needs a passphrase and none is given.
    public static func read(_ text: String, passphrase: [UInt8]? = nil) throws(SSHKeyError) -> SSHKey {
        guard text.utf8.count <= maximumSize else { throw .malformed("the file is over \(maximumSize >> 10) KiB") }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let start = lines.firstIndex(of: header), let end = lines.lastIndex(of: footer), start < end else {
            if lines.contains(where: { $0.hasPrefix("-----BEGIN") && $0.hasSuffix("PRIVATE KEY-----") }) {
                throw .unsupported("it is a PEM key, not an OpenSSH one; `ssh-keygen -p -f FILE` rewrites it as OpenSSH")
            }
            throw .malformed("it is no OpenSSH private key file (no “\(header)” line)")
        }
        guard let blob = Data(base64Encoded: lines[(start + 1)..<end].joined()) else {
            throw .malformed("its base64 is damaged")
        }
        return try decode(blob, passphrase: passphrase)
    }

    static func decode(_ blob: Data, passphrase: [UInt8]? = nil) throws(SSHKeyError) -> SSHKey {
        guard blob.starts(with: magic) else { throw .malformed("it does not start with openssh-key-v1") }
        var reader = SSHWireReader(blob.dropFirst(magic.count))
        let cipher = try reader.text()
        let kdf = try reader.text()
        let kdfOptions = try reader.string()
        guard try reader.uint32() == 1 else { throw .unsupported("a file holding more than one key") }
        let publicKey = try reader.string()
        var sealed = try reader.string()
        try reader.expectEnd()
        let isEncrypted = cipher != "none" || kdf != "none"
        if isEncrypted {
            guard let passphrase else { throw .encrypted }
            sealed = try KeyFileCipher.open(sealed, cipher: cipher, kdf: kdf, options: kdfOptions, passphrase: passphrase)
        }
        var section = SSHWireReader(sealed)
        // Equal check numbers are how a file says its passphrase was right.
        guard try section.uint32() == section.uint32() else {
            throw isEncrypted ? .wrongPassphrase : .malformed("its check numbers differ")
        }
        let key = try SSHKey.read(from: &section)
        guard key.publicKeyBlob == publicKey else { throw .mismatch }
        var padding: UInt8 = 1
        while !section.isAtEnd {
            guard try section.byte() == padding else { throw .malformed("its padding is wrong") }
            padding &+= 1
        }
        return key
    }

    /// `key` as an unencrypted key file that `ssh-keygen` and `ssh` read.
    public static func text(of key: SSHKey) -> String {
        var section = SSHWireWriter()
        let check = UInt32.random(in: .min ... .max)
        section.uint32(check)
        section.uint32(check)
        key.write(to: &section)
        var padding: UInt8 = 1
        while section.data.count % 8 != 0 {
            section.byte(padding)
            padding += 1
        }
        var writer = SSHWireWriter()
        writer.text("none")
        writer.text("none")
        writer.string(Data())
        writer.uint32(1)
        writer.string(key.publicKeyBlob)
        writer.string(section.data)
        let base64 = (magic + writer.data).base64EncodedString()
        var lines = [header]
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(70)))
            rest = rest.dropFirst(70)
        }
        lines.append(footer)
        return lines.joined(separator: "\n") + "\n"
    }
}
