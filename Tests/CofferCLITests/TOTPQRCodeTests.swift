import CofferTestSupport
import Foundation
import XCTest

/// `edit`/`add --totp-qr FILE.png` and `import --format otpauth-migration` with the real binary, on
/// images made by `qrencode`; codes checked against `oathtool`.
final class TOTPQRCodeTests: XCTestCase {
    private var testVault: TestVault?

    private func vault() throws -> TestVault {
        if let testVault { return testVault }
        let vault = try TestVault.make()
        testVault = vault
        return vault
    }

    override func tearDown() {
        testVault?.destroy()
        super.tearDown()
    }

    /// qrencode's PNG of `text` in the vault's work directory; its path.
    private func image(_ vault: TestVault, _ name: String, _ text: String) throws -> String {
        let path = vault.work.appendingPathComponent(name).path
        try QRImages.encode(text, to: path)
        return path
    }

    /// `coffer totp NAME` gives oathtool's code at the same moment (a period may end between them).
    private func assertCodeMatchesOathtool(_ vault: TestVault, _ name: String, base32: String, algorithm: String = "sha1",
                                           digits: Int = 6, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try Oathtool.totp(base32: base32, algorithm: algorithm, digits: digits, period: 30, at: Date())
        let shown = try XCTUnwrap(try vault.ok(["totp", name, "--json"], file: file, line: line).jsonObject()["code"] as? String)
        let after = try Oathtool.totp(base32: base32, algorithm: algorithm, digits: digits, period: 30, at: Date())
        XCTAssertTrue(shown == before || shown == after, "coffer \(shown), oathtool \(before) / \(after)", file: file, line: line)
    }

    func testEditSetsTheTOTPFromAQrencodeImage() throws {
        let vault = try vault()
        let id = try vault.add("Mail", ["--username", "ann"])
        let uri = "otpauth://totp/Mail:ann?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Mail&algorithm=SHA256&digits=8"
        let edited = try vault.ok(["edit", "mail", "--totp-qr", try image(vault, "mail.png", uri)])
        XCTAssertEqual(edited.line, id)
        XCTAssertEqual(try vault.show(id, reveal: true)["totp"] as? String, uri)
        try assertCodeMatchesOathtool(vault, "mail", base32: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", algorithm: "sha256", digits: 8)
        // add takes it too.
        try vault.add("Bank", ["--totp-qr", try image(vault, "bank.png", "otpauth://totp/Bank?secret=KRSXG5CTMVRXEZLU")])
        try assertCodeMatchesOathtool(vault, "bank", base32: "KRSXG5CTMVRXEZLU")
    }

    func testImagesWithoutOneTOTPCodeAreRefusedWithExit5AndNothingChanged() throws {
        let vault = try vault()
        let id = try vault.add("Keep", ["--totp", "JBSWY3DPEHPK3PXP"])
        let blank = try vault.writeWorkFile("blank.png", GreyPNG.encode(width: 40, height: 40, pixels: [UInt8](repeating: 255, count: 1_600)))
        let two = try vault.writeWorkFile("two.png", QRImages.sideBySide([
            try QRImages.modules("otpauth://totp/a?secret=KRSXG5CTMVRXEZLU"), try QRImages.modules("otpauth://totp/b?secret=JBSWY3DPEHPK3PXP"),
        ]))
        var large = try QRImages.png("otpauth://totp/a?secret=KRSXG5CTMVRXEZLU")
        large.append(Data(count: 5 << 20))
        let cases: [(String, [String])] = [
            (blank, ["no QR code"]),
            (two, ["2 QR codes"]),
            (try image(vault, "hello.png", "hello"), ["no otpauth://totp/ URI"]),
            (try image(vault, "hotp.png", "otpauth://hotp/x?secret=KRSXG5CTMVRXEZLU&counter=1"), ["otpauth://hotp"]),
            (try vault.writeWorkFile("text.png", "otpauth://totp/a?secret=KRSXG5CTMVRXEZLU"), ["not a PNG"]),
            (try vault.writeWorkFile("large.png", large), ["over the limit of 4 MiB"]),
            (vault.work.appendingPathComponent("missing.png").path, ["cannot be read"]),
        ]
        for (path, mentions) in cases {
            assertError(try vault.run(["edit", id, "--totp-qr", path]), 5, mentions: ["No TOTP read from"] + mentions)
        }
        XCTAssertEqual(try vault.show(id, reveal: true)["totp"] as? String, "JBSWY3DPEHPK3PXP")
        XCTAssertEqual(try vault.itemCount(), 1)
        assertError(try vault.run(["edit", id, "--totp", "KRSXG5CTMVRXEZLU", "--totp-qr", blank]), 2, mentions: ["not both"])
    }

    func testImportsGoogleAuthenticatorExportsFromALinkFileAndFromItsQRCode() throws {
        let vault = try vault()
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/fuzz/FuzzForeignImport/otpauth-migration.txt")
        let link = String(decoding: try Data(contentsOf: seed).dropFirst(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let links = try vault.writeWorkFile("export.txt", "\(link)\n")
        let result = try vault.ok(["import", "--format", "otpauth-migration", links])
        XCTAssertEqual(result.err, "Skipped 1 account(s) whose codes Coffer does not compute (counter-based HOTP, or MD5): Bank.\n"
            + "Imported 2 item(s) from \(links) (otpauth-migration); skipped 0 duplicate(s).\n")
        let github = try vault.show("github", reveal: true)
        XCTAssertEqual(github["username"] as? String, "bob")
        // The seed's secrets: "Hello!\xde\xad\xbe\xef" and "12345678901234567890", in base32.
        try assertCodeMatchesOathtool(vault, "example", base32: "JBSWY3DPEHPK3PXP")
        try assertCodeMatchesOathtool(vault, "github", base32: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", algorithm: "sha256", digits: 8)
        // The same export as a QR code image: both accounts are there already, so both are duplicates.
        let png = try image(vault, "export.png", link)
        let again = try vault.ok(["import", "--format", "otpauth-migration", png])
        XCTAssertTrue(again.err.hasSuffix("Imported 0 item(s) from \(png) (otpauth-migration); skipped 2 duplicate(s).\n"), again.summary)
        XCTAssertEqual(try vault.itemCount(), 2)
    }

    func testMalformedExportsAreRefusedWithNothingImported() throws {
        let vault = try vault()
        let cases: [(String, Data, String)] = [
            ("cut.txt", Data("otpauth-migration://offline?data=CgoKBA\n".utf8), "malformed"),
            ("totp.txt", Data("otpauth://totp/a?secret=KRSXG5CTMVRXEZLU\n".utf8), "not an otpauth-migration://offline link"),
            ("none.png", GreyPNG.encode(width: 40, height: 40, pixels: [UInt8](repeating: 255, count: 1_600)), "no QR code"),
        ]
        for (name, data, mention) in cases {
            let path = try vault.writeWorkFile(name, data)
            assertError(try vault.run(["import", "--format", "otpauth-migration", path]), 5, mentions: ["Cannot import", mention])
        }
        XCTAssertEqual(try vault.itemCount(), 0)
    }
}
