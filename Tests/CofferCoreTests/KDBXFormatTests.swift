@testable import CofferCore
import CofferTestSupport
import Foundation
import XCTest

/// The KDBX reader on files Coffer's writer makes with every cipher and key derivation the
/// reader takes (keepassxc-cli 2.7 makes only AES-KDF files: `KDBXImportTests` reads those, and
/// `KDBXExportTests` has keepassxc-cli open the writer's Argon2id/ChaCha20 files): round trips,
/// libargon2 against libsodium, every block checked, a gzip bomb, wrong keys.
final class KDBXFormatTests: XCTestCase {
    private let password = KDBXCredentials(password: SecureBuffer(copying: Array("pw".utf8)))
    private let fastArgon2id = KDBXWriter.argon2id(memory: 8 << 20, iterations: 2)

    /// A file holding one entry with a protected password, a hidden custom field and a file.
    private func file(_ writer: KDBXWriter, credentials: KDBXCredentials? = nil, notes: String = "n") throws -> [UInt8] {
        var document = KeePassXMLWriter(stream: try writer.innerStream())
        var item = Item(title: "Mail", tags: ["a", "b"], created: Timestamp(milliseconds: 1_600_000_000_000))
        item.entry.username = "kim"
        item.entry.password = "pw-ü"
        item.entry.notes = notes
        item.entry.custom = [CustomField(label: "PIN", value: "1234", type: .hidden), CustomField(label: "Note", value: "<x&y>")]
        document.add(item, files: [("scan.bin", 0)])
        return try writer.write(xml: document.finish(), binaries: [Data([0, 1, 2, 255])], credentials: credentials ?? password)
    }

    private func read(_ bytes: [UInt8], credentials: KDBXCredentials? = nil) throws -> ImportDraft {
        let export = try KeePassKDBX.read(Data(bytes), file: "t.kdbx", credentials: credentials ?? password)
        XCTAssertEqual(export.drafts.count, 1)
        return try XCTUnwrap(export.drafts.first)
    }

    private func refusal(_ bytes: [UInt8], credentials: KDBXCredentials? = nil) -> String? {
        do {
            _ = try KeePassKDBX.read(Data(bytes), file: "t.kdbx", credentials: credentials ?? password)
            return nil
        } catch {
            if case .invalidImport(let reason) = error { return reason }
            return "\(error)"
        }
    }

    func testEveryCipherAndKeyDerivationRoundTrips() throws {
        let derivations: [(KDBXOuterHeader.Cipher, KDBXKeyDerivation, Bool)] = [
            (.chacha20, fastArgon2id, true),
            (.aes256, .argon2(isHybrid: false, salt: KDBXWriter.random(32), memory: 8 << 20, iterations: 2, parallelism: 2, version: 0x13), true),
            (.chacha20, .aes(seed: KDBXWriter.random(32), rounds: 1_000), false),
            (.aes256, .argon2(isHybrid: true, salt: KDBXWriter.random(16), memory: 1 << 20, iterations: 1, parallelism: 4, version: 0x10), false),
        ]
        for (cipher, derivation, compressed) in derivations {
            var writer = KDBXWriter(derivation: derivation)
            writer.cipher = cipher
            writer.isCompressed = compressed
            let draft = try read(try file(writer))
            XCTAssertEqual([draft.title, draft.username, draft.password, draft.notes], ["Mail", "kim", "pw-ü", "n"], "\(derivation)")
            XCTAssertEqual(draft.tags, ["a", "b"])
            XCTAssertEqual(draft.custom.map { [$0.label, $0.value, $0.type] }, [["PIN", "1234", "hidden"], ["Note", "<x&y>", "text"]])
            XCTAssertEqual(try draft.files.map { try $0.bytes() }, [Data([0, 1, 2, 255])])
        }
    }

    /// The dlopen'd libargon2 gives libsodium's Argon2id for one lane (the vault's own KDF).
    func testLibargon2AgreesWithLibsodiumOnArgon2id() throws {
        let salt = KDBXWriter.random(16)
        let key = SecureBuffer(copying: Array("composite".utf8))
        let libargon2 = try KDBXKeyDerivation.argon2(isHybrid: true, salt: salt, memory: 8 << 20, iterations: 3, parallelism: 1,
                                                     version: 0x13).transform(key)
        let libsodium = try Argon2id.derive(passphrase: key, salt: Data(salt), memory: 8 << 20, iterations: 3)
        XCTAssertTrue(libargon2.isEqual(to: libsodium))
    }

    func testAWrongPasswordOrKeyFileIsRefused() throws {
        let keyFile = Data(KDBXWriter.random(32))
        let bytes = try file(KDBXWriter(derivation: fastArgon2id), credentials: KDBXCredentials(password: password.password, keyFile: keyFile))
        let wrong = "t.kdbx could not be opened: the password or key file is wrong (or its header was altered)"
        XCTAssertEqual(refusal(bytes), wrong)
        XCTAssertEqual(refusal(bytes, credentials: KDBXCredentials(password: nil, keyFile: keyFile)), wrong)
        XCTAssertNil(refusal(bytes, credentials: KDBXCredentials(password: password.password, keyFile: keyFile)))
    }

    /// A flipped bit in any block, or a file cut inside any block, refuses the file naming the block.
    func testEveryBlockIsCheckedBeforeUse() throws {
        var writer = KDBXWriter(derivation: fastArgon2id)
        writer.blockSize = 256
        writer.isCompressed = false
        let bytes = try file(writer, notes: String(repeating: "long notes ", count: 100))
        var offset = try KDBXTestFiles.headerLength(Data(bytes)) + 64
        var block = 0
        while offset < bytes.count {
            let size = Int(bytes[offset + 32]) | Int(bytes[offset + 33]) << 8
            var flipped = bytes
            // The last block is empty: its HMAC is what can be flipped.
            flipped[size > 0 ? offset + 36 + size / 2 : offset + 5] ^= 0x04
            XCTAssertEqual(refusal(flipped), "t.kdbx is damaged or was altered: block \(block + 1) does not match its HMAC")
            let cut = Array(bytes.prefix(size > 0 ? offset + 36 + size / 2 : offset + 20))
            XCTAssertNotNil(refusal(cut)?.range(of: "is cut short"), "cut in block \(block + 1): \(refusal(cut) ?? "")")
            offset += 36 + size
            block += 1
        }
        XCTAssertGreaterThan(block, 3)
        XCTAssertNil(refusal(bytes))
    }

    /// Gzip that inflates past the bound is refused once the bound is crossed, not inflated whole.
    func testAGzipBombIsRefused() throws {
        let writer = KDBXWriter(derivation: fastArgon2id)
        let zeros = Data(count: 8 << 20)
        let bytes = try writer.write(xml: zeros, binaries: [], credentials: password)
        XCTAssertLessThan(bytes.count, 64 << 10, "8 MiB of zeros gzip to a few kilobytes")
        XCTAssertThrowsError(try KDBXPayload(bytes, credentials: password, inflatedLimit: 1 << 20)) { error in
            XCTAssertEqual((error as? KDBXFailure)?.reason, "inflates to more than 1 MiB (a compression bomb?)")
        }
    }

    /// The header's bounds are checked before any key derivation.
    func testKeyDerivationBoundsAreCheckedFirst() throws {
        let good = Data(try file(KDBXWriter(derivation: fastArgon2id)))
        let cases: [([UInt8], String)] = [
            (KDBXTestFiles.argon2(memory: 64 << 30, iterations: 2), "asks Argon2 for 65536 MiB of memory; Coffer allows at most 1 GiB"),
            (KDBXTestFiles.argon2(memory: 64 << 20, iterations: 1 << 60), "asks Argon2 for 1152921504606846976 iterations; Coffer allows 1 to 1000"),
            (KDBXTestFiles.aesKDF(rounds: 1 << 60), "asks for 1152921504606846976 AES-KDF rounds; Coffer stops at 500000000"),
        ]
        for (parameters, reason) in cases {
            XCTAssertEqual(refusal(Array(try KDBXTestFiles.replacingKDF(good, with: parameters))), "t.kdbx \(reason)")
        }
        XCTAssertEqual(refusal(Array(good.prefix(20))), "t.kdbx is cut short")
        XCTAssertEqual(refusal(Array("not a database".utf8)),
                       "t.kdbx is not a KeePass database (KDBX): its first bytes are not KeePass's signature")
    }
}
