import XCTest
@testable import CofferCore

final class InvitationCodeTests: XCTestCase {
    func testACodeReadsBackHoweverItIsTyped() throws {
        for _ in 0..<200 {
            let code = InvitationCode.random()
            XCTAssertEqual(code.description.count, 13)
            XCTAssertEqual(try InvitationCode(parsing: code.description), code)
            XCTAssertEqual(try InvitationCode(parsing: code.symbols.lowercased()), code)
            XCTAssertEqual(try InvitationCode(parsing: " " + code.description.replacingOccurrences(of: "-", with: " ") + " "), code)
            let misread = code.symbols.replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "l")
            XCTAssertEqual(try InvitationCode(parsing: misread), code, "O and l read as 0 and 1")
        }
    }

    /// Every single wrong symbol, anywhere, is a typo found before any request.
    func testEverySingleSubstitutionIsCaught() throws {
        let code = InvitationCode.random()
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        for position in 0..<11 {
            for symbol in alphabet where symbol != Array(code.symbols)[position] {
                var typed = Array(code.symbols)
                typed[position] = symbol
                XCTAssertThrowsError(try InvitationCode(parsing: String(typed)), "\(typed)") { error in
                    XCTAssertEqual(error as? InvitationCode.Problem, .typo)
                }
            }
        }
    }

    func testMostNeighbourSwapsAreCaughtAndBadInputIsNamed() throws {
        var caught = 0, swaps = 0
        for _ in 0..<200 {
            let symbols = Array(InvitationCode.random().symbols)
            for position in 0..<10 where symbols[position] != symbols[position + 1] {
                var typed = symbols
                typed.swapAt(position, position + 1)
                swaps += 1
                if (try? InvitationCode(parsing: String(typed))) == nil { caught += 1 }
            }
        }
        XCTAssertGreaterThan(Double(caught) / Double(swaps), 0.95, "\(caught) of \(swaps) swaps caught")
        XCTAssertThrowsError(try InvitationCode(parsing: "ABCD-EFGH-JK")) { XCTAssertEqual($0 as? InvitationCode.Problem, .length(10)) }
        XCTAssertThrowsError(try InvitationCode(parsing: "ABCD-EFGH-JKU")) { XCTAssertEqual($0 as? InvitationCode.Problem, .symbol("U")) }
    }

    func testBothSidesAgreeOnTheNumberAndAKeyInTheMiddleChangesIt() throws {
        let inviter = PairingHandshake(), claimant = PairingHandshake(), middle = PairingHandshake()
        let onInviter = try inviter.agree(inviter: inviter.publicKey, claimant: claimant.publicKey)
        let onClaimant = try claimant.agree(inviter: inviter.publicKey, claimant: claimant.publicKey)
        XCTAssertEqual(onInviter.confirmation, onClaimant.confirmation)
        XCTAssertNotNil(onInviter.confirmation.range(of: #"^[0-9]{4}-[0-9]{2}$"#, options: .regularExpression))
        let sealed = try onInviter.seal(Data("account".utf8), label: "grant")
        XCTAssertEqual(try onClaimant.open(sealed, label: "grant"), Data("account".utf8))
        XCTAssertThrowsError(try onClaimant.open(sealed, label: "invite"), "a record cannot be moved")
        // A server that swapped in its own key talks to each side with a different secret.
        let inviterWithMiddle = try inviter.agree(inviter: inviter.publicKey, claimant: middle.publicKey)
        let claimantWithMiddle = try claimant.agree(inviter: middle.publicKey, claimant: claimant.publicKey)
        XCTAssertThrowsError(try claimantWithMiddle.open(try inviterWithMiddle.seal(Data("x".utf8), label: "grant"), label: "grant"))
    }

    func testTheRendezvousDependsOnTheCodeOnly() throws {
        let code = InvitationCode.random()
        let one = try RendezvousKeys(code: code), two = try RendezvousKeys(code: code)
        XCTAssertEqual(one.accountName, two.accountName)
        XCTAssertEqual(one.accountPassword, two.accountPassword)
        XCTAssertEqual(try two.open(one.seal(Data("offer".utf8), label: "invite"), label: "invite"), Data("offer".utf8))
        let other = try RendezvousKeys(code: InvitationCode.random())
        XCTAssertNotEqual(one.accountName, other.accountName)
        XCTAssertThrowsError(try other.open(one.seal(Data("offer".utf8), label: "invite"), label: "invite"))
        XCTAssertFalse(one.accountName.contains(code.symbols) || one.accountPassword.contains(code.symbols))
    }
}
