import CofferCore
import CofferTestSupport
import Crypto
import Foundation
import XCTest

/// `import --format kdbx` of databases the real `keepassxc-cli` made (architecture §13): KDBX 4
/// (keepassxc-cli saves one as KDBX 4 once an entry is in the recycle bin) with AES-KDF, AES-256,
/// protected values, attachments in the inner header, TOTP two ways, a passkey's attributes,
/// history and groups three deep; KDBX 3.1 with a key file; and hostile files, each refused with
/// one sentence and nothing added. keepassxc-cli's key derivation is its quick default (AES-KDF,
/// 10⁶ rounds, about 0.1 s): files with Argon2d, Argon2id and ChaCha20 are Coffer's writer's,
/// opened by keepassxc-cli and read back in `KDBXExportTests`, and round-tripped in `KDBXFormatTests`.
final class KDBXImportTests: XCTestCase {
    private let source = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <KeePassFile><Meta><Generator>test</Generator><DatabaseName>t</DatabaseName></Meta>
        <Root><Group><UUID>AAAAAAAAAAAAAAAAAAAAAA==</UUID><Name>Root</Name>
        <Group><UUID>AAAAAAAAAAAAAAAAAAAAAQ==</UUID><Name>Personal</Name>
        <Group><UUID>AAAAAAAAAAAAAAAAAAAAAw==</UUID><Name>Bank</Name>
        <Group><UUID>AAAAAAAAAAAAAAAAAAAABA==</UUID><Name>Cärds</Name>
        <Entry><UUID>AAAAAAAAAAAAAAAAAAAAAg==</UUID>
        <Tags>blue</Tags>
        <String><Key>Title</Key><Value>Bank ☕</Value></String>
        <String><Key>UserName</Key><Value>ünï</Value></String>
        <String><Key>Password</Key><Value ProtectInMemory="True">first-pw</Value></String>
        <String><Key>URL</Key><Value>https://bank.example</Value></String>
        <String><Key>Notes</Key><Value>line 1
        line 2</Value></String>
        <String><Key>otp</Key><Value ProtectInMemory="True">otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&amp;period=30&amp;digits=6</Value></String>
        <String><Key>PIN</Key><Value ProtectInMemory="True">1234</Value></String>
        <String><Key>Recovery email</Key><Value>r@example.org</Value></String>
        <String><Key>KPEX_PASSKEY_USERNAME</Key><Value>ann</Value></String>
        <String><Key>KPEX_PASSKEY_PRIVATE_KEY_PEM</Key><Value ProtectInMemory="True">-----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMG
        -----END PRIVATE KEY-----</Value></String>
        </Entry>
        <Entry><UUID>AAAAAAAAAAAAAAAAAAAABQ==</UUID>
        <String><Key>Title</Key><Value>Old TOTP</Value></String>
        <String><Key>Password</Key><Value ProtectInMemory="True">pw2</Value></String>
        <String><Key>TOTP Seed</Key><Value ProtectInMemory="True">GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ</Value></String>
        <String><Key>TOTP Settings</Key><Value>30;8</Value></String>
        </Entry>
        </Group></Group></Group></Group></Root></KeePassFile>
        """

    private var cleanups: [() -> Void] = []

    override func tearDown() {
        cleanups.forEach { $0() }
        super.tearDown()
    }

    private func scratch() throws -> KeePassXCScratch {
        let scratch = try KeePassXCScratch(prefix: "coffer-kdbx")
        cleanups.append { scratch.remove() }
        return scratch
    }

    private func vault() throws -> TestVault {
        let vault = try TestVault.make()
        cleanups.append { vault.destroy() }
        return vault
    }

    /// The database of `source`, edited twice, with two attachments and an entry in the recycle
    /// bin (password "pw"): KDBX 4.
    private func kdbx4Database(_ scratch: KeePassXCScratch, files: [String: Data]) throws -> String {
        let database = scratch.database
        try scratch.run(["import", "-p", try scratch.write("in.xml", Data(source.utf8)), database], "pw\npw\n")
        let entry = "Personal/Bank/Cärds/Bank ☕"
        try scratch.run(["edit", "-q", "-p", database, entry], "pw\nsecond-pw\n")
        try scratch.run(["edit", "-q", "-u", "ünï 2", database, entry], "pw\n")
        for (name, data) in files.sorted(by: { $0.key < $1.key }) {
            try scratch.run(["attachment-import", "-q", database, entry, name, try scratch.write(name, data)], "pw\n")
        }
        try scratch.run(["add", "-q", database, "Thrown away"], "pw\n")
        try scratch.run(["rm", "-q", database, "Thrown away"], "pw\n")
        return database
    }

    private func passwordFile(_ vault: TestVault, _ password: String = "pw") throws -> String {
        try vault.writeWorkFile("kdbx-password", password + "\n")
    }

    private static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    func testAKDBX4DatabaseFromKeePassXCComesWhole() throws {
        let scratch = try scratch()
        var generator = SeededGenerator(seed: 46)
        let files = ["scan.pdf": Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
                     "notes.txt": Data("remember\n".utf8)]
        let database = try kdbx4Database(scratch, files: files)
        let header = try Data(contentsOf: URL(fileURLWithPath: database)).prefix(12)
        XCTAssertEqual(Array(header.suffix(2)), [4, 0], "keepassxc-cli saved KDBX 4 (4.1: the passkey's attributes)")

        let vault = try vault()
        let result = try vault.ok(["import", "--format", "kdbx", "--password-file", try passwordFile(vault), database])
        XCTAssertEqual(result.err, "Skipped 1 entry in the recycle bin.\nImported 2 item(s) from \(database) (kdbx); skipped 0 duplicate(s).\n"
                       + "Kept 2 file(s) with their items.\n")
        let ids = try vault.list().compactMap { $0["id"] as? String }
        let items = Dictionary(uniqueKeysWithValues: try vault.showAll(ids, reveal: true).map { ($0["title"] as? String ?? "", $0) })
        XCTAssertEqual(Set(items.keys), ["Bank ☕", "Old TOTP"])

        let bank = try XCTUnwrap(items["Bank ☕"])
        XCTAssertEqual(bank["username"] as? String, "ünï 2")
        XCTAssertEqual(bank["password"] as? String, "second-pw")
        XCTAssertEqual(bank["origins"] as? [String], ["https://bank.example"])
        XCTAssertEqual(bank["notes"] as? String, "line 1\nline 2")
        XCTAssertEqual(bank["tags"] as? [String], ["Personal", "Bank", "Cärds", "blue"])
        XCTAssertEqual(bank["totp"] as? String, "otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&period=30&digits=6")
        let custom = try XCTUnwrap(bank["custom"] as? [[String: Any]])
        let fields = Dictionary(uniqueKeysWithValues: custom.map { ($0["label"] as? String ?? "", [$0["value"] as? String, $0["type"] as? String]) })
        XCTAssertEqual(fields, [
            "PIN": ["1234", "hidden"], "Recovery email": ["r@example.org", "text"], "KPEX_PASSKEY_USERNAME": ["ann", "hidden"],
            "KPEX_PASSKEY_PRIVATE_KEY_PEM": ["-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMG\n-----END PRIVATE KEY-----", "hidden"],
        ])
        // Newest first: the attachments changed nothing Coffer's history holds; the username, then the password edit.
        let patches = try XCTUnwrap(bank["history"] as? [[String: Any]]).compactMap { $0["patch"] as? [String: Any] }
        XCTAssertEqual(patches.map { $0.keys.sorted() }, [["username"], ["password"]])
        XCTAssertEqual(patches[0]["username"] as? String, "ünï")
        XCTAssertEqual(patches[1]["password"] as? String, "first-pw")

        // The files byte for byte, through Coffer's own export.
        let exported = vault.work.appendingPathComponent("export.json").path
        try vault.ok(["export", "--format", "json", exported])
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exported))) as? [[String: Any]])
        let attachments = try XCTUnwrap(objects.first { $0["title"] as? String == "Bank ☕" }?["attachments"] as? [[String: Any]])
        var hashes: [String: String] = [:]
        for attachment in attachments {
            let data = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(attachment["data"] as? String)))
            hashes[try XCTUnwrap(attachment["name"] as? String)] = Self.sha256(data)
        }
        XCTAssertEqual(hashes, files.mapValues(Self.sha256))

        // TOTP codes equal oathtool's: the otp URI, and KeePassXC's older seed and settings (8 digits).
        for (title, secret, digits) in [("Bank ☕", "JBSWY3DPEHPK3PXP", 6), ("Old TOTP", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", 8)] {
            let id = try XCTUnwrap(items[title]?["id"] as? String)
            let before = try Oathtool.totp(base32: secret, algorithm: "sha1", digits: digits, period: 30, at: Date())
            let shown = String(try vault.ok(["totp", id]).line.prefix(digits))
            let after = try Oathtool.totp(base32: secret, algorithm: "sha1", digits: digits, period: 30, at: Date())
            XCTAssertTrue(shown == before || shown == after, "\(title): coffer \(shown), oathtool \(before)/\(after)")
        }

        // The same file again adds nothing; --dry-run lists without adding.
        let again = try vault.ok(["import", "--format", "kdbx", "--password-file", try passwordFile(vault), "--dry-run", database])
        XCTAssertTrue(again.out.hasPrefix("Would import 0 item(s)"), again.out)
        XCTAssertEqual(try vault.itemCount(), 2)
    }

    func testAKDBX31DatabaseWithAKeyFileOpensWithBothAndNotWithOne() throws {
        let scratch = try scratch()
        let keyFile = scratch.root.appendingPathComponent("db.keyx").path
        try scratch.run(["db-create", "-q", "-p", "--set-key-file", keyFile, scratch.database], "pw\npw\n")
        try scratch.run(["add", "-q", "-k", keyFile, "-u", "kim", "-p", scratch.database, "Mail"], "pw\nmail-pw\n")
        let header = try Data(contentsOf: URL(fileURLWithPath: scratch.database)).prefix(12)
        XCTAssertEqual(Array(header.suffix(4)), [1, 0, 3, 0], "keepassxc-cli's db-create saves KDBX 3.1")

        let vault = try vault()
        let password = try passwordFile(vault)
        let withoutKey = try vault.run(["import", "--format", "kdbx", "--password-file", password, scratch.database])
        XCTAssertNotEqual(withoutKey.status, 0)
        XCTAssertTrue(withoutKey.err.contains("\(scratch.database) could not be opened: the password or key file is wrong "
                                              + "(or its header was altered); nothing was imported."), withoutKey.err)
        let wrongPassword = try vault.run(["import", "--format", "kdbx", "--password-file", try passwordFile(vault, "nope"),
                                           "--key-file", keyFile, scratch.database])
        XCTAssertNotEqual(wrongPassword.status, 0)
        XCTAssertEqual(try vault.itemCount(), 0)

        try vault.ok(["import", "--format", "kdbx", "--password-file", try passwordFile(vault), "--key-file", keyFile, scratch.database])
        let item = try XCTUnwrap(try vault.showAll(try vault.list().compactMap { $0["id"] as? String }, reveal: true).first)
        XCTAssertEqual(item["title"] as? String, "Mail")
        XCTAssertEqual(item["username"] as? String, "kim")
        XCTAssertEqual(item["password"] as? String, "mail-pw")
    }

    /// A KDBX 4 file cut short, with a bit flipped in its data, with a wrong HMAC, or whose header
    /// asks for 2⁶⁰ AES-KDF rounds or 64 GiB of Argon2 memory: one sentence each, nothing added.
    func testHostileFilesAreRefusedWithOneSentenceAndNothingAdded() throws {
        let scratch = try scratch()
        let database = try kdbx4Database(scratch, files: ["a.bin": Data(repeating: 7, count: 5_000)])
        let good = try Data(contentsOf: URL(fileURLWithPath: database))
        let headerEnd = try KDBXTestFiles.headerLength(good)
        var variants: [(String, Data, String)] = []
        variants.append(("truncated", good.prefix(good.count - 40), "is cut short"))
        var flipped = good
        flipped[headerEnd + 64 + 36 + 100] ^= 0x01
        variants.append(("flipped", flipped, "is damaged or was altered: block 1 does not match its HMAC"))
        var wrongMAC = good
        wrongMAC[headerEnd + 64] ^= 0x80
        variants.append(("wrong-hmac", wrongMAC, "is damaged or was altered: block 1 does not match its HMAC"))
        let rounds = try KDBXTestFiles.replacingKDF(good, with: KDBXTestFiles.aesKDF(rounds: 1 << 60))
        variants.append(("rounds", rounds, "asks for 1152921504606846976 AES-KDF rounds; Coffer stops at 500000000"))
        let memory = try KDBXTestFiles.replacingKDF(good, with: KDBXTestFiles.argon2(memory: 64 << 30, iterations: 2))
        variants.append(("memory", memory, "asks Argon2 for 65536 MiB of memory; Coffer allows at most 1 GiB"))
        let iterations = try KDBXTestFiles.replacingKDF(good, with: KDBXTestFiles.argon2(memory: 64 << 20, iterations: 1 << 60))
        variants.append(("iterations", iterations, "asks Argon2 for 1152921504606846976 iterations; Coffer allows 1 to 1000"))

        let vault = try vault()
        let password = try passwordFile(vault)
        for (name, data, reason) in variants {
            let path = try vault.writeWorkFile("\(name).kdbx", data)
            let started = Date()
            let result = try vault.run(["import", "--format", "kdbx", "--password-file", password, path])
            XCTAssertNotEqual(result.status, 0, name)
            XCTAssertTrue(result.err.contains("\(path) \(reason)"), "\(name): \(result.err)")
            XCTAssertEqual(result.err.split(separator: "\n").count, 1, "\(name): one sentence: \(result.err)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "\(name): refused before any long work")
        }
        XCTAssertEqual(try vault.itemCount(), 0)
    }

    /// KDBX 4's inner header (ChaCha20 inner stream) before `xml`.
    private static func inner(_ xml: String) -> [UInt8] {
        func field(_ id: UInt8, _ value: [UInt8]) -> [UInt8] {
            [id] + withUnsafeBytes(of: UInt32(value.count).littleEndian) { Array($0) } + value
        }
        return field(1, [3, 0, 0, 0]) + field(2, Array(0..<64)) + field(0, []) + Array(xml.utf8)
    }

    /// Files whose key and blocks are right but whose contents are hostile: gzip inflating past
    /// 512 MiB (600 MiB of zeros), an XML entity bomb, elements nested 10,000 deep.
    func testAGzipBombAnXMLBombAndDeepNestingAreRefused() throws {
        let zeros = try ExternalTool.run("/bin/sh", ["-c", "head -c 600M /dev/zero | gzip -1"])
        XCTAssertEqual(zeros.status, 0, zeros.errorText)
        XCTAssertLessThan(zeros.output.count, 4 << 20)
        let entities = (1...9).map { "<!ENTITY e\($0) \"" + String(repeating: "&e\($0 - 1);", count: 10) + "\">" }.joined()
        let bomb = "<?xml version=\"1.0\"?><!DOCTYPE KeePassFile [<!ENTITY e0 \"ha\">\(entities)]><KeePassFile>&e9;</KeePassFile>"
        let deep = "<KeePassFile><Root>" + String(repeating: "<Group>", count: 10_000) + String(repeating: "</Group>", count: 10_000)
            + "</Root></KeePassFile>"
        let cases: [(String, Data, String)] = [
            ("gzip-bomb", try KeePassKDBX.file(inner: Array(zeros.output), isGzipped: true, password: "pw"),
             "inflates to more than 512 MiB (a compression bomb?)"),
            ("xml-bomb", try KeePassKDBX.file(inner: Self.inner(bomb), isGzipped: false, password: "pw"),
             "'s inner XML has a document type or entity declaration (<!…>), which a KeePass export never has"),
            ("deep", try KeePassKDBX.file(inner: Self.inner(deep), isGzipped: false, password: "pw"),
             "'s inner XML nests elements more than 100 deep"),
        ]
        let vault = try vault()
        let password = try passwordFile(vault)
        for (name, data, reason) in cases {
            let path = try vault.writeWorkFile("\(name).kdbx", data)
            let result = try vault.run(["import", "--format", "kdbx", "--password-file", password, path])
            XCTAssertNotEqual(result.status, 0, name)
            XCTAssertTrue(result.err.contains(path + (reason.hasPrefix("'") ? "" : " ") + reason), "\(name): \(result.err)")
            XCTAssertEqual(result.err.split(separator: "\n").count, 1, "\(name): one sentence: \(result.err)")
        }
        XCTAssertEqual(try vault.itemCount(), 0)
    }
}
