import CofferCore
import CofferTestSupport
import Crypto
import Foundation
import XCTest

/// `export --format kdbx`, judged by the real `keepassxc-cli` (ls -R, show -a/-s/-t,
/// attachment-export), and the round trip Coffer → KDBX → Coffer (architecture §13).
final class KDBXExportTests: XCTestCase {
    private var cleanups: [() -> Void] = []

    override func tearDown() {
        cleanups.forEach { $0() }
        super.tearDown()
    }

    private func vault() throws -> TestVault {
        let vault = try TestVault.make()
        cleanups.append { vault.destroy() }
        return vault
    }

    private func keepassxc(_ arguments: [String]) throws -> ExternalTool.Result {
        let result = try ExternalTool.run("/usr/bin/keepassxc-cli", arguments, stdin: Data("pw\n".utf8))
        XCTAssertEqual(result.status, 0, "keepassxc-cli \(arguments): \(result.errorText)")
        return result
    }

    private func show(_ database: String, _ entry: String, _ attribute: String) throws -> String {
        try keepassxc(["show", "-q", "-s", "-a", attribute, database, entry]).outputText.trimmingCharacters(in: .newlines)
    }

    private static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// A vault with a login (two origins, TOTP, custom and hidden fields, tags, a file), a card and a note.
    private func filledVault() throws -> (TestVault, Data) {
        let vault = try vault()
        let login = try vault.add("Mail ☕", ["--username", "kim", "--password", "p<&>w", "--origin", "https://mail.example",
                                             "--origin", "https://webmail.example", "--tag", "work", "--tag", "mail",
                                             "--notes", "line 1\nline 2",
                                             "--totp", "otpauth://totp/Mail:kim?secret=JBSWY3DPEHPK3PXP&period=30&digits=6",
                                             "--field", "Recovery=r@example.org", "--hidden-field", "PIN=4321"])
        var generator = SeededGenerator(seed: 7)
        let scan = Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try vault.ok(["attach", login, try vault.writeWorkFile("scan.pdf", scan)])
        try vault.add("Visa", ["--kind", "card", "--field", "cardholder=Kim Lee", "--field", "number=4111111111111111",
                               "--field", "code=123"])
        try vault.add("Plans", ["--kind", "note", "--notes", "the plans"])
        return (vault, scan)
    }

    func testKeePassXCOpensTheExportAndFindsEverything() throws {
        let (vault, scan) = try filledVault()
        let database = vault.work.appendingPathComponent("out.kdbx").path
        let password = try vault.writeWorkFile("kdbx-password", "pw\n")
        let arguments = ["export", "--format", "kdbx", "--password-file", password] + TestVault.fastKDF + [database]
        XCTAssertEqual(try vault.ok(arguments).err, "Exported 3 item(s) to \(database) (KDBX 4).\n")
        var status = stat()
        XCTAssertEqual(stat(database, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o600)

        XCTAssertEqual(Set(try keepassxc(["ls", "-q", "-R", "-f", database]).outputText.split(separator: "\n").map(String.init)),
                       ["Mail ☕", "Visa", "Plans"])
        let info = try keepassxc(["db-info", "-q", database]).outputText
        XCTAssertTrue(info.contains("Cipher: ChaCha20 256-bit") && info.contains("KDF: Argon2id (3 rounds, 65536 KB)"), info)
        XCTAssertEqual(try show(database, "Mail ☕", "UserName"), "kim")
        XCTAssertEqual(try show(database, "Mail ☕", "Password"), "p<&>w")
        XCTAssertEqual(try show(database, "Mail ☕", "URL"), "https://mail.example")
        XCTAssertEqual(try show(database, "Mail ☕", "KP2A_URL_1"), "https://webmail.example")
        XCTAssertEqual(try show(database, "Mail ☕", "Notes"), "line 1\nline 2")
        XCTAssertEqual(try show(database, "Mail ☕", "Recovery"), "r@example.org")
        XCTAssertEqual(try show(database, "Mail ☕", "PIN"), "4321")
        XCTAssertEqual(try show(database, "Visa", "Number"), "4111111111111111")
        XCTAssertEqual(try show(database, "Visa", "Security code"), "123")
        XCTAssertEqual(try show(database, "Visa", "Cardholder"), "Kim Lee")
        XCTAssertEqual(try show(database, "Plans", "Notes"), "the plans")
        // The password is protected: without -s keepassxc-cli masks it.
        let shown = try keepassxc(["show", "-q", database, "Mail ☕"]).outputText
        XCTAssertTrue(shown.contains("Password: PROTECTED\n"), shown)
        XCTAssertTrue(shown.contains("Tags: work,mail") || shown.contains("Tags: mail,work"), shown)
        // To a file: keepassxc-cli 2.7.4's --stdout writes the bytes as text (1,000 random bytes came out as 1,850).
        let saved = vault.work.appendingPathComponent("saved.pdf").path
        try keepassxc(["attachment-export", "-q", database, "Mail ☕", "scan.pdf", saved])
        XCTAssertEqual(Self.sha256(try Data(contentsOf: URL(fileURLWithPath: saved))), Self.sha256(scan))
        let before = try Oathtool.totp(base32: "JBSWY3DPEHPK3PXP", algorithm: "sha1", digits: 6, period: 30, at: Date())
        let code = try keepassxc(["show", "-q", "-t", database, "Mail ☕"]).outputText.trimmingCharacters(in: .newlines)
        let after = try Oathtool.totp(base32: "JBSWY3DPEHPK3PXP", algorithm: "sha1", digits: 6, period: 30, at: Date())
        XCTAssertTrue(code == before || code == after, "keepassxc-cli \(code), oathtool \(before)/\(after)")

        // Never over an existing file without --force.
        let again = try vault.run(arguments)
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.err.contains("exists; give --force to replace it."), again.err)
        try vault.ok(arguments + ["--force"])
    }

    /// The login "Mail ☕" of `vault`'s JSON export, without what a round trip makes anew (ids,
    /// times below the second).
    private func login(_ vault: TestVault) throws -> [String: Any] {
        let path = vault.work.appendingPathComponent("export.json").path
        try vault.ok(["export", "--format", "json", path])
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [[String: Any]])
        var login = try XCTUnwrap(objects.first { $0["title"] as? String == "Mail ☕" })
        for key in ["id", "modified", "last_used"] { login[key] = nil }
        login["history"] = (login["history"] as? [[String: Any]])?.map { step -> [String: Any] in
            var patch = step["patch"] as? [String: Any] ?? [:]
            // A custom field's id is made anew by the import: compare labels, values and types.
            patch["custom"] = (patch["custom"] as? [[String: Any]])?.map { ["label": $0["label"], "value": $0["value"], "type": $0["type"]] }
            return ["created": (step["created"] as? String)?.prefix(19).description as Any, "patch": patch]
        }
        login["created"] = (login["created"] as? String)?.prefix(19).description
        login["custom"] = (login["custom"] as? [[String: Any]])?.map { ["label": $0["label"], "value": $0["value"], "type": $0["type"]] }
        login["attachments"] = (login["attachments"] as? [[String: Any]])?.map { ["name": $0["name"], "data": $0["data"]] }
        return login
    }

    /// Coffer → KDBX → Coffer: a login comes back as it was, its history too (its JSON export,
    /// ids aside; times to the second, KDBX's precision).
    func testARoundTripKeepsALogin() throws {
        let (vault, _) = try filledVault()
        try vault.ok(["edit", "Mail ☕", "--password", "second"])
        try vault.ok(["edit", "Mail ☕", "--username", "kim2", "--hidden-field", "PIN=9999"])
        let database = vault.work.appendingPathComponent("out.kdbx").path
        let password = try vault.writeWorkFile("kdbx-password", "pw\n")
        try vault.ok(["export", "--format", "kdbx", "--password-file", password] + TestVault.fastKDF + [database])
        let other = try self.vault()
        let otherPassword = try other.writeWorkFile("kdbx-password", "pw\n")
        try other.ok(["import", "--format", "kdbx", "--password-file", otherPassword, database])

        let (before, after) = (try login(vault), try login(other))
        XCTAssertEqual(before as NSDictionary, after as NSDictionary)
    }

    /// Coffer's writer with each key derivation and cipher the reader takes (the export itself
    /// writes Argon2id and ChaCha20): keepassxc-cli opens each and reads the protected password
    /// and the file, and `import --format kdbx` reads each back.
    func testKeePassXCAgreesOnArgon2dArgon2idAESKDFAndBothCiphers() throws {
        let vault = try vault()
        let password = try vault.writeWorkFile("kdbx-password", "pw\n")
        var item = Item(title: "Mail", created: .now())
        item.entry.password = "p-ü"
        let entry = KeePassKDBXExport.Entry(item: item, files: [("a.bin", Data([0, 1, 2, 3, 255]))])
        let credentials = KDBXCredentials(password: SecureBuffer(copying: Array("pw".utf8)))
        for (kdf, isAES, shown) in [("argon2d", true, "KDF: Argon2d (2 rounds, 16384 KB)"), ("argon2id", false, "KDF: Argon2id (2 rounds, 16384 KB)"),
                                    ("aes-kdf", false, "KDF: AES (10000 rounds)")] {
            let path = try vault.writeWorkFile("\(kdf).kdbx", try KeePassKDBXExport.write([entry], credentials: credentials, kdf: kdf, isAES: isAES))
            let info = try keepassxc(["db-info", "-q", path]).outputText
            XCTAssertTrue(info.contains(shown) && info.contains(isAES ? "Cipher: AES 256-bit" : "Cipher: ChaCha20 256-bit"), info)
            XCTAssertEqual(try show(path, "Mail", "Password"), "p-ü", kdf)
            let saved = vault.work.appendingPathComponent("\(kdf).bin").path
            try keepassxc(["attachment-export", "-q", path, "Mail", "a.bin", saved])
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: saved)), Data([0, 1, 2, 3, 255]), kdf)
            try vault.ok(["import", "--format", "kdbx", "--password-file", password, path])
        }
        let items = try vault.showAll(try vault.list().compactMap { $0["id"] as? String }, reveal: true)
        XCTAssertEqual(items.map { $0["password"] as? String }, ["p-ü"], "imported once, then skipped twice as a duplicate")
    }

    /// `export --format keepassxc-xml`: keepassxc-cli imports it (the hidden field, the file), and
    /// Coffer → KeePass XML → Coffer keeps the login.
    func testTheKeePassXMLExportIsWhatKeePassXCImports() throws {
        let (vault, scan) = try filledVault()
        try vault.ok(["edit", "Mail ☕", "--password", "second"])
        let xml = vault.work.appendingPathComponent("out.xml").path
        XCTAssertEqual(try vault.ok(["export", "--format", "keepassxc-xml", xml]).err, "Exported 3 item(s) to \(xml).\n")
        let database = vault.work.appendingPathComponent("imported.kdbx").path
        let made = try ExternalTool.run("/usr/bin/keepassxc-cli", ["import", "-q", "-p", xml, database], stdin: Data("pw\npw\n".utf8))
        XCTAssertEqual(made.status, 0, made.errorText)
        XCTAssertEqual(try show(database, "Mail ☕", "PIN"), "4321")
        XCTAssertEqual(try show(database, "Mail ☕", "Password"), "second")
        XCTAssertEqual(try show(database, "Visa", "Number"), "4111111111111111")
        let saved = vault.work.appendingPathComponent("saved.pdf").path
        try keepassxc(["attachment-export", "-q", database, "Mail ☕", "scan.pdf", saved])
        XCTAssertEqual(Self.sha256(try Data(contentsOf: URL(fileURLWithPath: saved))), Self.sha256(scan))

        let other = try self.vault()
        try other.ok(["import", "--format", "keepassxc-xml", xml])
        XCTAssertEqual(try login(vault) as NSDictionary, try login(other) as NSDictionary)
    }
}
