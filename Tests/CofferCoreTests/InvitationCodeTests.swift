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

    /// The transcript of an exchange between `inviter` and `claimant` (`name` claimed).
    private func transcript(_ inviter: PairingHandshake, _ claimant: PairingHandshake, name: String = "laptop") -> PairingTranscript {
        PairingTranscript(kind: "device", expires: 1_767_226_200_000, name: name,
                          commitment: PairingTranscript.commitment(to: claimant.publicKey),
                          inviterKey: inviter.publicKey, claimantKey: claimant.publicKey)
    }

    func testBothSidesAgreeOnTheNumberAndAKeyInTheMiddleChangesIt() throws {
        let inviter = PairingHandshake(), claimant = PairingHandshake(), middle = PairingHandshake()
        let onInviter = try inviter.agree(transcript(inviter, claimant))
        let onClaimant = try claimant.agree(transcript(inviter, claimant))
        XCTAssertEqual(onInviter.confirmation, onClaimant.confirmation)
        XCTAssertNotNil(onInviter.confirmation.range(of: #"^[0-9]{4}-[0-9]{2}$"#, options: .regularExpression))
        let sealed = try onInviter.seal(Data("account".utf8), label: "grant")
        XCTAssertEqual(try onClaimant.open(sealed, label: "grant"), Data("account".utf8))
        XCTAssertThrowsError(try onClaimant.open(sealed, label: "invite"), "a record cannot be moved")
        // Someone with the code who swapped in its own key talks to each side with a different secret.
        let inviterWithMiddle = try inviter.agree(transcript(inviter, middle))
        let claimantWithMiddle = try claimant.agree(transcript(middle, claimant))
        XCTAssertThrowsError(try claimantWithMiddle.open(try inviterWithMiddle.seal(Data("x".utf8), label: "grant"), label: "grant"))
    }

    /// The number covers the whole exchange: a name or an expiry changed on the way gives the two
    /// sides different numbers, and a key that is not the one committed to agrees on nothing.
    func testTheNumberCoversTheWholeTranscriptAndTheRevealMustMatchTheCommitment() throws {
        let inviter = PairingHandshake(), claimant = PairingHandshake(), middle = PairingHandshake()
        let agreed = try inviter.agree(transcript(inviter, claimant)).confirmation
        // Each field changed on one side only: different keys, so a sealed grant does not open either.
        var renamed = transcript(inviter, claimant)
        renamed.name = "laptop "
        var later = transcript(inviter, claimant)
        later.expires += 1
        var otherKind = transcript(inviter, claimant)
        otherKind.kind = "item"
        for changed in [renamed, later, otherKind] {
            let onClaimant = try claimant.agree(changed)
            XCTAssertThrowsError(try onClaimant.open(try inviter.agree(transcript(inviter, claimant)).seal(Data("x".utf8), label: "grant"),
                                                     label: "grant"))
        }
        XCTAssertEqual(try claimant.agree(transcript(inviter, claimant)).confirmation, agreed)
        // A reveal of another key than the claim committed to.
        var swapped = transcript(inviter, claimant)
        swapped.claimantKey = middle.publicKey
        XCTAssertThrowsError(try inviter.agree(swapped))
        XCTAssertFalse(swapped.isRevealMatchingCommitment)
        // Our own key on both sides (a reflection) agrees on nothing.
        var reflected = transcript(inviter, inviter)
        reflected.commitment = PairingTranscript.commitment(to: inviter.publicKey)
        XCTAssertThrowsError(try inviter.agree(reflected))
        XCTAssertEqual(PairingTranscript.commitment(to: claimant.publicKey).count, 32)
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
