import Foundation
import XCTest

/// `coffer manual`, the man page `make install` writes: roff with every command and every exit
/// code of architecture §6.
final class ManualPageTests: XCTestCase {
    func testTheManPageHasEveryCommandAndEveryExitCode() throws {
        let result = try CofferProcess.run(["manual"])
        assertOK(result)
        let page = result.out
        XCTAssertTrue(page.hasPrefix(".TH COFFER 1 "), String(page.prefix(200)))
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EXIT CODES"] {
            XCTAssertTrue(page.contains("\n.SH \(section)\n"), "no \(section) section")
        }
        for command in ["init", "add", "health", "generate", "passwd", "account signup", "device invite", "share create", "share invite", "share join", "share revoke", "recovery-kit", "recover"] {
            XCTAssertTrue(page.contains(".SS \"coffer \(command)\""), "no section for \(command)")
        }
        XCTAssertFalse(page.contains(".SS \"coffer agent\""), "a hidden command is in the manual")
        let exitCodes = try XCTUnwrap(page.components(separatedBy: ".SH EXIT CODES\n").last?.components(separatedBy: ".SH ").first)
        let listed = exitCodes.split(separator: "\n").filter { $0.hasPrefix(".B ") }.map { String($0.dropFirst(3)) }
        XCTAssertEqual(listed, ["0", "1", "2", "3", "4", "5", "6", "10", "11", "12", "13", "14", "15"])
        for name in ["AMBIGUOUS", "OFFLINE", "NETWORK", "SYNC_LOCKED", "SYNC_AUTH", "INVITE", "FORGED"] {
            XCTAssertTrue(exitCodes.contains(name), "exit codes do not name \(name)")
        }
        // No line may start a roff request by accident (a help line beginning with "." or "'").
        let requests = Set(page.split(separator: "\n").filter { $0.hasPrefix(".") }.map { String($0.prefix(3)) })
        XCTAssertTrue(requests.isSubset(of: [".TH", ".SH", ".SS", ".B ", ".TP", ".PP", ".nf", ".fi"]), "\(requests)")
    }

    /// `--help` names `manual` and lists the exit codes (from the table the man page uses): a
    /// person at the terminal had neither, and nothing said the man page existed.
    func testHelpListsManualAndTheExitCodes() throws {
        let result = try CofferProcess.run(["--help"])
        assertOK(result)
        let help = result.out
        XCTAssertTrue(help.contains("\n  manual "), "manual is not among the listed commands:\n\(help)")
        let exitCodes = try XCTUnwrap(help.components(separatedBy: "EXIT CODES:").dropFirst().first, help)
        let codes = exitCodes.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            return line.hasPrefix("  ") && words.first.map { Int($0) != nil } == true ? String(words[0]) : nil
        }
        XCTAssertEqual(codes, ["0", "1", "2", "3", "4", "5", "6", "10", "11", "12", "13", "14", "15"], exitCodes)
        XCTAssertTrue(exitCodes.contains("AMBIGUOUS") && exitCodes.contains("FORGED"), exitCodes)
    }
}
