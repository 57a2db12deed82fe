@testable import CofferSync
import CofferCore
import Foundation
import XCTest

/// A server's words reach people (the `sync` error, a push's warning, the stored last error) only
/// escaped, on one line and cut (issue 28, finding 4).
final class ServerTextTests: XCTestCase {
    private let hostile = "\u{1B}]52;c;UFdORUQ=\u{07}\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{9B}31m\u{202E}\r\nnext"

    func testAnErrorBodysMessageIsEscapedAndCut() throws {
        let message = try XCTUnwrap(KintoJSON.errorMessage(["message": hostile + String(repeating: "x", count: 5_000)]))
        XCTAssertTrue(message.hasPrefix("\\e]52;c;UFdORUQ=\\a\\e]0;PWNED\\a\\e[2J\\u009B31m\\u202E\\r\\nnext"), message)
        XCTAssertTrue(TerminalText.isSafe(message))
        XCTAssertEqual(message.count, TerminalText.messageLimit)
        XCTAssertEqual(KintoJSON.errorMessage(["error": hostile]), TerminalText.line(hostile))
    }

    /// A refused write in a batch (logged as a warning, on stderr by default) carries the escaped text.
    func testAFailedSubResponseCarriesTheEscapedMessage() {
        let response = KintoBatchCoding.SubResponse(status: 400, headers: KintoHeaders(), body: ["message": hostile])
        guard case .failed(400, let message) = KintoBatchCoding.result(response) else {
            return XCTFail("a 400 is a failed write")
        }
        XCTAssertEqual(message, TerminalText.line(hostile))
    }

    /// An error made anywhere else with raw text still reads safely.
    func testNetworkErrorsShowNoRawControls() {
        let shown = KintoError.network(message: hostile).userMessage
        XCTAssertTrue(TerminalText.isSafe(shown), shown)
        XCTAssertTrue(shown.contains("\\e]52;c;"), shown)
        XCTAssertTrue(TerminalText.isSafe(KintoError.accountExists(user: hostile).userMessage))
    }
}
