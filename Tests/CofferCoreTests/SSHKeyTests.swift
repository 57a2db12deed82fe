import Foundation
import XCTest
@testable import CofferCore

/// SSH keys without the agent: key files, the wire encoding, hostile bytes, the item kind.
final class SSHKeyTests: XCTestCase {
    /// ssh-keygen's Ed25519 key of the fuzz seed corpus; `ssh-keygen -lf` printed its fingerprint.
    private func seedKeyFile() throws -> String {
        let data = try XCTUnwrap(try SeedCorpusTests.corpus("FuzzSSHAgent").first { $0.name == "keyfile-ed25519.txt" }).data
        return String(decoding: data.dropFirst(), as: UTF8.self)
    }

    func testAKeyFileFromSSHKeygenReadsWithItsFingerprint() throws {
        let key = try OpenSSHKeyFile.read(try seedKeyFile())
        XCTAssertEqual(key.type, .ed25519)
        XCTAssertEqual(key.comment, "seed-ed25519")
        XCTAssertEqual(key.fingerprint, "SHA256:1Cby8N2SR3GIxIqu0V75PQTqOe08hJebvb05HldY8xI")
        XCTAssertTrue(key.authorizedKey.hasPrefix("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA"))
        XCTAssertTrue(key.authorizedKey.hasSuffix(" seed-ed25519"))
    }

    func testEveryTypeWritesAFileThatReadsBackAndSignsTheSame() throws {
        for type in SSHKeyType.allCases {
            let key = try SSHKey.generate(type, comment: "c-\(type.rawValue)")
            let text = OpenSSHKeyFile.text(of: key)
            XCTAssertTrue(text.hasPrefix("-----BEGIN OPENSSH PRIVATE KEY-----\n"), type.rawValue)
            XCTAssertLessThanOrEqual(text.split(separator: "\n").map(\.count).max() ?? 0, 70)
            let again = try OpenSSHKeyFile.read(text)
            XCTAssertEqual(again.publicKeyBlob, key.publicKeyBlob, type.rawValue)
            XCTAssertEqual(again.comment, key.comment)
            XCTAssertEqual(again.bits, type == .rsa ? SSHKeyType.generatedRSABits : 256)
            // Ed25519 and RSA PKCS #1 v1.5 are deterministic: the same signature from both.
            if type != .ecdsa {
                let flags = SSHKey.rsaSHA512Flag
                XCTAssertEqual(try again.signature(for: Data("m".utf8), flags: flags), try key.signature(for: Data("m".utf8), flags: flags))
            }
        }
    }

    func testAnItemHoldsTheKeyAndDescribesIt() throws {
        let key = try SSHKey.generate(.rsa, comment: "laptop")
        let item = key.item(titled: "Laptop key")
        XCTAssertEqual(item.entry.kind, "ssh-key")
        XCTAssertEqual(item.entry.fields["public_key"], key.authorizedKey)
        XCTAssertEqual(item.entry.fields["fingerprint"], key.fingerprint)
        XCTAssertEqual(item.entry.fields["comment"], "laptop")
        // A 3072-bit key file is over the short-text limit of other kinds' fields, within its own.
        XCTAssertGreaterThan(try XCTUnwrap(item.entry.fields["private_key"]).count, ItemValidation.shortTextLimit)
        XCTAssertEqual(ItemValidation.problems(in: item), [])
        XCTAssertEqual(try SSHKey(item: item)?.publicKeyBlob, key.publicKeyBlob)
        XCTAssertEqual(ItemKind.sshKey.field("public-key")?.name, "public_key")
        XCTAssertEqual(ItemKind.sshKey.field("Private key")?.isSecret, true)
        XCTAssertEqual(try FieldSelector(name: "public-key")?.value(of: item, at: Date()), key.authorizedKey)
        XCTAssertTrue(ItemField.isSecret("private_key"))
        XCTAssertEqual(ItemKind.listedName(of: item.entry), key.fingerprint)
    }

    /// A truncated, padded, mismatched or encrypted file is refused with why, never a crash.
    func testHostileKeyFilesAreRefused() throws {
        let text = try seedKeyFile()
        let lines = text.split(separator: "\n").map(String.init)
        let blob = try XCTUnwrap(Data(base64Encoded: lines.dropFirst().dropLast().joined()))
        for length in stride(from: 0, to: blob.count, by: 3) {
            XCTAssertThrowsError(try OpenSSHKeyFile.decode(blob.prefix(length)), "prefix \(length)")
        }
        XCTAssertThrowsError(try OpenSSHKeyFile.decode(blob + Data([0])))
        // Another key's public half in front of this private key.
        let other = try SSHKey.generate(.ed25519, comment: "")
        let original = try OpenSSHKeyFile.decode(blob)
        var swapped = blob
        let range = try XCTUnwrap(swapped.range(of: original.publicKeyBlob))
        swapped.replaceSubrange(range, with: other.publicKeyBlob)
        XCTAssertThrowsError(try OpenSSHKeyFile.decode(swapped)) { XCTAssertEqual($0 as? SSHKeyError, .mismatch) }
        // Encrypted, every truncation: refused, never a crash.
        let protected = try protectedSeed()
        let sealed = try XCTUnwrap(Data(base64Encoded: protected.split(separator: "\n").dropFirst().dropLast().joined()))
        for length in stride(from: 0, to: sealed.count, by: 7) {
            XCTAssertThrowsError(try OpenSSHKeyFile.decode(sealed.prefix(length), passphrase: Array("seed passphrase".utf8)))
        }
        XCTAssertThrowsError(try OpenSSHKeyFile.read("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")) {
            XCTAssertTrue("\($0)".contains("ssh-keygen -p"), "\($0)")
        }
        XCTAssertThrowsError(try OpenSSHKeyFile.read(String(repeating: "A", count: OpenSSHKeyFile.maximumSize + 1)))
    }

    private func protectedSeed() throws -> String {
        let data = try XCTUnwrap(try SeedCorpusTests.corpus("FuzzSSHAgent").first { $0.name == "keyfile-ed25519-protected.txt" }).data
        return String(decoding: data.dropFirst(), as: UTF8.self)
    }

    /// ssh-keygen's passphrase-protected file (bcrypt_pbkdf, 16 rounds, aes256-ctr) opens with its
    /// passphrase only: a known answer for the Blowfish, bcrypt_pbkdf and AES-CTR written here.
    func testAPassphraseProtectedFileFromSSHKeygenOpensWithItsPassphrase() throws {
        let text = try protectedSeed()
        XCTAssertThrowsError(try OpenSSHKeyFile.read(text)) { XCTAssertEqual($0 as? SSHKeyError, .encrypted) }
        XCTAssertThrowsError(try OpenSSHKeyFile.read(text, passphrase: Array("seed passphrasf".utf8))) {
            XCTAssertEqual($0 as? SSHKeyError, .wrongPassphrase)
        }
        let key = try OpenSSHKeyFile.read(text, passphrase: Array("seed passphrase".utf8))
        XCTAssertEqual(key.comment, "seed-protected")
        XCTAssertEqual(key.fingerprint, "SHA256:ljv/rjo3Z5DrM5HWrCQ/UA2tEkrvmJWd7ZLs6PA1MFU")
    }

    /// π's digits as Blowfish's tables begin and end, and Blowfish's published test vector
    /// (Schneier's: a key of eight zero bytes encrypts the zero block to 4EF99745 6198DD78).
    func testBlowfishFromPiMatchesThePublishedVector() {
        let state = Blowfish.initialState
        XCTAssertEqual(state.count, 1042)
        XCTAssertEqual(state[0], 0x243F_6A88)
        XCTAssertEqual(state[17], 0x8979_FB1B)
        XCTAssertEqual(state[18], 0xD131_0BA6)
        XCTAssertEqual(state[1041], 0x3AC3_72E6)
        var cipher = Blowfish()
        cipher.expand(key: [UInt8](repeating: 0, count: 8))
        var (left, right): (UInt32, UInt32) = (0, 0)
        cipher.encrypt(&left, &right)
        XCTAssertEqual(left, 0x4EF9_9745)
        XCTAssertEqual(right, 0x6198_DD78)
    }

    func testBcryptRoundsAreBounded() {
        XCTAssertThrowsError(try BcryptPBKDF.derive(passphrase: [1], salt: [1], rounds: BcryptPBKDF.maximumRounds + 1, count: 48))
        XCTAssertThrowsError(try BcryptPBKDF.derive(passphrase: [1], salt: [1], rounds: 0, count: 48))
        XCTAssertThrowsError(try BcryptPBKDF.derive(passphrase: [], salt: [1], rounds: 1, count: 48))
    }

    func testTheWireReaderChecksEveryLength() throws {
        var huge = SSHWireReader(Data([0xFF, 0xFF, 0xFF, 0xFF, 1, 2]))
        XCTAssertThrowsError(try huge.string())
        var negative = SSHWireReader(Data([0, 0, 0, 1, 0x80]))
        XCTAssertThrowsError(try negative.mpint())
        var padded = SSHWireReader(Data([0, 0, 0, 2, 0, 0x80]))
        XCTAssertEqual(try padded.mpint(), Data([0x80]))
        var writer = SSHWireWriter()
        writer.mpint(Data([0, 0, 0x80, 1]))
        XCTAssertEqual(writer.data, Data([0, 0, 0, 3, 0, 0x80, 1]))
        var empty = SSHWireReader(Data())
        XCTAssertThrowsError(try empty.byte())
        XCTAssertThrowsError(try empty.uint32())
    }
}
