import CofferTestSupport
import Foundation
import XCTest

/// Files and values a user hands to a command: an import file over the limit or not a file at all,
/// a passphrase file others can read, secrets given as `-` instead of on the command line.
final class InputLimitTests: XCTestCase {
    private var vault: TestVault?

    override func setUpWithError() throws {
        vault = try TestVault.make()
    }

    override func tearDown() {
        vault?.destroy()
        super.tearDown()
    }

    /// A sparse file of 129 MiB: refused from its size alone, before a byte is read (it would take
    /// a minute and gigabytes to parse), with the limit named; `/dev/zero` never ends: refused too.
    func testAnImportFileOverTheLimitOrNotAFileIsRefusedBeforeReading() throws {
        let vault = try XCTUnwrap(vault)
        let huge = try vault.writeWorkFile("huge.csv", "url,username,password\n")
        XCTAssertEqual(truncate(huge, 129 << 20), 0)
        let started = Date()
        let refused = try vault.run(["import", "--format", "firefox", huge])
        assertError(refused, 5, mentions: ["129 MiB", "over the limit of 128 MiB", "nothing was imported"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "the file was read before it was refused")
        assertError(try vault.run(["import", "--format", "chrome", "/dev/zero"]), 5, mentions: ["not a regular file"])
        XCTAssertEqual(try vault.itemCount(), 0)
    }

    /// As ssh does for a private key: a passphrase file group or others can read is refused with
    /// what to do; made private, the same file works.
    func testAPassphraseFileOthersCanReadIsRefused() throws {
        let vault = try XCTUnwrap(vault)
        XCTAssertEqual(chmod(vault.passphraseFile, 0o644), 0)
        let refused = try vault.run(["list"])
        assertExit(refused, 1)
        XCTAssertTrue(refused.err.contains("can be read by other users (mode 644)") && refused.err.contains("chmod 600"),
                      refused.summary)
        XCTAssertEqual(chmod(vault.passphraseFile, 0o600), 0)
        try vault.ok(["list"])
    }

    /// `recover --kit-file` says what is wrong with the kit's file in a sentence, as every other
    /// file option does, never the name of the internal problem (`tooLarge(size:limit:)`).
    func testAKitFileTooLargeOrReadableByOthersIsRefusedInASentence() throws {
        let vault = try XCTUnwrap(vault)
        let large = try vault.writeWorkFile("large.kit", String(repeating: "x", count: 70_000))
        XCTAssertEqual(chmod(large, 0o600), 0)
        let tooLarge = try vault.run(["recover", "--kit-file", large], unlock: false)
        assertError(tooLarge, 1, mentions: ["The kit file", "large.kit is 68 KiB, over the limit of 64 KiB"])
        XCTAssertFalse(tooLarge.err.contains("tooLarge"), tooLarge.summary)
        let open = try vault.writeWorkFile("open.kit", "server: http://127.0.0.1:1/v1\n")
        XCTAssertEqual(chmod(open, 0o644), 0)
        let readable = try vault.run(["recover", "--kit-file", open], unlock: false)
        assertError(readable, 1, mentions: ["open.kit can be read by other users (mode 644)", "chmod 600"])
        XCTAssertFalse(readable.err.contains("readableByOthers"), readable.summary)
    }

    /// `--password -` and `--totp -` read the values from stdin, in that order, so they never show
    /// in the process list; the help says why.
    func testSecretsGivenAsADashComeFromStandardInput() throws {
        let vault = try XCTUnwrap(vault)
        let secret = "JBSWY3DPEHPK3PXP"
        let result = try vault.ok(["add", "--title", "From stdin", "--password", "-", "--totp", "-"],
                                  stdin: Data("a password, with spaces\n\(secret)\n".utf8))
        let item = try vault.show(result.line, reveal: true)
        XCTAssertEqual(item["password"] as? String, "a password, with spaces")
        XCTAssertEqual(item["totp"] as? String, secret)
        try vault.ok(["edit", result.line, "--password", "-"], stdin: Data("changed\n".utf8))
        XCTAssertEqual(try vault.show(result.line, reveal: true)["password"] as? String, "changed")
        // Help wraps its lines: compare with the words joined by single spaces.
        let help = try vault.run(["add", "--help"], unlock: false).out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(help.contains("'-' reads it from stdin"), help)
        XCTAssertEqual(help.components(separatedBy: "process list").count - 1, 2, "both --password and --totp warn: \(help)")
    }
}
