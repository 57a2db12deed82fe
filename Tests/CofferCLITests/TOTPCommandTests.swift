import CofferTestSupport
import Foundation
import XCTest

/// `coffer totp`, `show --field totp` and `add`/`edit --totp` with the real binary, codes checked
/// against Debian's `oathtool` at the same moment.
final class TOTPCommandTests: XCTestCase {
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

    /// Runs `command` between two oathtool readings of the clock; its code must be one of theirs
    /// (a period may end while it runs). Returns the command's result.
    private func assertCode(_ vault: TestVault, _ command: [String], base32: String, algorithm: String, digits: Int,
                            period: Int, code: (CofferResult) throws -> String,
                            file: StaticString = #filePath, line: UInt = #line) throws -> CofferResult {
        let before = try Oathtool.totp(base32: base32, algorithm: algorithm, digits: digits, period: period, at: Date())
        let result = try vault.ok(command, file: file, line: line)
        let after = try Oathtool.totp(base32: base32, algorithm: algorithm, digits: digits, period: period, at: Date())
        let shown = try code(result)
        XCTAssertTrue(shown == before || shown == after, "coffer printed \(shown), oathtool \(before) / \(after)",
                      file: file, line: line)
        return result
    }

    func testTotpJSONMatchesOathtool() throws {
        let vault = try vault()
        let secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
        try vault.add("Totp SHA256", ["--totp", "otpauth://totp/Acme:ann?secret=\(secret)&algorithm=SHA256&digits=8&period=60"])
        let result = try assertCode(vault, ["totp", "totp sha256", "--json"], base32: secret, algorithm: "sha256",
                                    digits: 8, period: 60) { try XCTUnwrap($0.jsonObject()["code"] as? String) }
        let json = try result.jsonObject()
        assertKeys(json, ["code", "secondsLeft", "period"])
        XCTAssertEqual(json["period"] as? Int, 60)
        let left = try XCTUnwrap(json["secondsLeft"] as? Int)
        XCTAssertTrue((1...60).contains(left), "secondsLeft \(left)")
    }

    func testTotpTextAndShowFieldMatchOathtoolForABareSecret() throws {
        let vault = try vault()
        try vault.add("Totp bare", ["--totp", "kr sx g5 ct mv rx ez lu"])
        let text = try assertCode(vault, ["totp", "totp bare"], base32: "KRSXG5CTMVRXEZLU", algorithm: "sha1",
                                  digits: 6, period: 30) { String($0.line.prefix(6)) }
        XCTAssertTrue(text.line.hasSuffix("s left)"), text.summary)
        _ = try assertCode(vault, ["show", "totp bare", "--field", "totp"], base32: "KRSXG5CTMVRXEZLU", algorithm: "sha1",
                           digits: 6, period: 30) { $0.line }
        let sha512 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        try vault.add("Totp SHA512", ["--totp", "otpauth://totp/x?secret=\(sha512)&algorithm=SHA512&digits=7&period=15"])
        _ = try assertCode(vault, ["show", "totp sha512", "--field", "totp"], base32: sha512, algorithm: "sha512",
                           digits: 7, period: 15) { $0.line }
    }

    func testInvalidSecretsAreRefusedWithExit5AndNothingSaved() throws {
        let vault = try vault()
        let id = try vault.add("Totp keep", ["--totp", "JBSWY3DPEHPK3PXP"])
        let count = try vault.itemCount()
        let cases: [(String, String)] = [
            ("not base32!", "base32"),
            ("otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=3", "otpauth://hotp"),
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=10", "digits=10"),
            ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&algorithm=MD5", "MD5"),
        ]
        for (secret, mention) in cases {
            assertError(try vault.run(["add", "--title", "Totp refused", "--totp", secret]), 5, mentions: ["TOTP", mention])
            assertError(try vault.run(["edit", id, "--totp", secret]), 5, mentions: ["TOTP", mention])
        }
        XCTAssertEqual(try vault.itemCount(), count)
        XCTAssertEqual(try vault.show(id, reveal: true)["totp"] as? String, "JBSWY3DPEHPK3PXP")
        // An empty --totp removes the secret, as before.
        try vault.ok(["edit", id, "--totp", ""])
        XCTAssertNil(try vault.show(id, reveal: true)["totp"] as? String)
    }
}
