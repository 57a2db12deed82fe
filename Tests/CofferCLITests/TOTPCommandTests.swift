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

    /// A server whose `Date` says 30 days from now (a fault proxy in front of the real Kinto) must not
    /// move codes: `totp`, `show --field totp` and `--json` give oathtool's code for this device's
    /// clock, with a warning that names the difference.
    func testAHostileServerDateDoesNotMoveTheCodeButIsWarnedAbout() async throws {
        let vault = try vault()
        let proxy = try FaultProxy(upstream: try SyncCommandServer.require())
        defer { proxy.stop() }
        try await proxy.setFault(.shiftDate, count: -1, seconds: 30 * 86_400)
        let secret = "KRSXG5CTMVRXEZLU"
        try vault.add("Totp skewed", ["--totp", secret])
        let password = try vault.writeWorkFile("account-password", "canary-account-\(UUID().uuidString)\n")
        try vault.ok(["account", "signup", "--server", proxy.url.absoluteString, "--user", "totp-\(UUID().uuidString.lowercased())",
                      "--password-file", password])
        try vault.ok(["sync"])
        let status = try vault.ok(["status", "--json"]).jsonObject()
        let skew = try XCTUnwrap(status["clockSkewMs"] as? Int, "the sync measured no clock: \(status)")
        XCTAssertGreaterThan(skew, 29 * 86_400_000, "the proxy's Date did not reach the vault")

        let text = try assertCode(vault, ["totp", "totp skewed"], base32: secret, algorithm: "sha1", digits: 6,
                                  period: 30) { String($0.line.prefix(6)) }
        XCTAssertTrue(text.err.contains("30 days ahead of this device's"), text.summary)
        let field = try assertCode(vault, ["show", "totp skewed", "--field", "totp"], base32: secret, algorithm: "sha1",
                                   digits: 6, period: 30) { $0.line }
        XCTAssertTrue(field.err.contains("Warning: the sync server's clock"), field.summary)
        let json = try assertCode(vault, ["totp", "totp skewed", "--json"], base32: secret, algorithm: "sha1", digits: 6,
                                  period: 30) { try XCTUnwrap($0.jsonObject()["code"] as? String) }
        XCTAssertNotNil(try json.jsonObject()["clockWarning"] as? String, json.summary)
    }
}
