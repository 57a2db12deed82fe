import CofferCore
@testable import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// Inviting a person from the Members page (`I`): the code while it waits, the "allow?" question
/// with the number and the person's card (someone else's text, escaped), and every way the
/// question ends — yes, no, Esc, a lock, another question open when the claim came.
final class MembersInviteTests: XCTestCase {
    let now = FakeClock.start

    func membersPage() -> ScreenState {
        var state = Fixtures.unlocked()
        state.summary.share = SharedVaultSummary(name: "family", members: [
            MembersRevokeTests.member("ann", "Ann", at: 0), MembersRevokeTests.member("bob", "Bob", isYou: true, at: 1),
        ], epoch: 1, entries: 2)
        _ = Update.apply(.key(.character("M")), to: &state, now: now)
        return state
    }

    func ticket(named name: String = MembersRevokeTests.hostile) throws -> (MemberTicket, String) {
        let (invitation, agreement) = try DevicesPageTests.claim(named: name, now: now)
        let person = try PersonKeys().person(name: name, account: "dee")
        return (MemberTicket(ticket: invitation, person: person), agreement.confirmation)
    }

    /// The page waiting with its code, then the question: the number first, then the card.
    func invitedAndClaimed() throws -> (ScreenState, MemberTicket) {
        var state = membersPage()
        XCTAssertEqual(Update.apply(.key(.character("I")), to: &state, now: now), [.openMemberInvitation])
        XCTAssertEqual(KeyBindings.binding(for: .character("I"), in: .members)?.disabledReason(state), "An invitation is open.")
        _ = Update.apply(.memberInvitationOpened(code: "K7Q4-M2XP-9RT", expires: now.addingTimeInterval(600)), to: &state, now: now)
        let (ticket, _) = try ticket()
        XCTAssertEqual(Update.apply(.memberClaimed(ticket), to: &state, now: now), [])
        return (state, ticket)
    }

    func testTheCodeShowsWhileItWaits() {
        var state = membersPage()
        _ = Update.apply(.key(.character("I")), to: &state, now: now)
        XCTAssertTrue(Render.frame(state, size: .standard, now: now).text.contains("Opening an invitation on the sync server…"))
        _ = Update.apply(.memberInvitationOpened(code: "K7Q4-M2XP-9RT", expires: now.addingTimeInterval(600)), to: &state, now: now)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "members-inviting")
    }

    func testAllowingAddsThePerson() throws {
        var (state, ticket) = try invitedAndClaimed()
        guard case .confirm(let question) = state.overlay else { return XCTFail("nothing asked") }
        let number = ticket.ticket.claim.agreement.confirmation
        XCTAssertTrue(question.question.hasPrefix("\(number) · “Mal\\e]52;c;eA==\\a\\u202E” (account dee) wants to join “family” · allow?"),
                      question.question)
        let frame = Render.frame(state, size: .standard, now: now).text
        XCTAssertFalse(frame.contains("\u{1B}") || frame.contains("\u{202E}"), "a raw control reached the grid")
        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: now), [.answerMemberInvitation(ticket, allow: true)])
        XCTAssertTrue(Render.frame(state, size: .standard, now: now).text.contains("Answering the invitation…"))
        XCTAssertEqual(Update.apply(.memberInvitationFinished("“Dee” joined; nothing is left on the server."), to: &state, now: now),
                       [.reload], "the roster the add stored shows")
        guard case .members(let page) = state.page else { return XCTFail("left the page") }
        XCTAssertNil(page.invitation)
        XCTAssertEqual(state.notice?.text, "“Dee” joined; nothing is left on the server.")
    }

    func testNoEscAndALockAreRefusals() throws {
        var (declined, ticket) = try invitedAndClaimed()
        XCTAssertEqual(Update.apply(.key(.character("n")), to: &declined, now: now), [.answerMemberInvitation(ticket, allow: false)])
        var (escaped, escapedTicket) = try invitedAndClaimed()
        XCTAssertEqual(Update.apply(.key(.escape), to: &escaped, now: now), [.answerMemberInvitation(escapedTicket, allow: false)])
        var (locked, lockedTicket) = try invitedAndClaimed()
        let effects = Update.apply(.tick, to: &locked, now: now.addingTimeInterval(301))  // auto-lock
        XCTAssertTrue(locked.isLocked)
        XCTAssertTrue(effects.contains(.answerMemberInvitation(lockedTicket, allow: false)), "the lock closes the question as a no")
    }

    /// A claim that comes while another question is open (X's), or after the page was left, is
    /// declined: a key typed for that question must not answer this one.
    func testAClaimOverAnotherQuestionOrPageIsDeclined() throws {
        var state = membersPage()
        _ = Update.apply(.key(.character("I")), to: &state, now: now)
        _ = Update.apply(.key(.home), to: &state, now: now)
        _ = Update.apply(.key(.character("X")), to: &state, now: now)
        let (ticket, _) = try ticket()
        XCTAssertEqual(Update.apply(.memberClaimed(ticket), to: &state, now: now), [.answerMemberInvitation(ticket, allow: false)])
        guard case .confirm(let question) = state.overlay else { return XCTFail("X's question went") }
        XCTAssertEqual(question.action, .revokeMember(id: "ann", name: "Ann"))

        var left = membersPage()
        _ = Update.apply(.key(.character("I")), to: &left, now: now)
        _ = Update.apply(.key(.escape), to: &left, now: now)
        XCTAssertEqual(Update.apply(.memberClaimed(ticket), to: &left, now: now), [.answerMemberInvitation(ticket, allow: false)])
        XCTAssertNil(left.overlay)
    }

    func testWhatTheKeyRefuses() {
        var state = membersPage()
        let binding = KeyBindings.binding(for: .character("I"), in: .members)
        XCTAssertNil(binding?.disabledReason(state))
        state.scheduler.hasAccount = false
        XCTAssertEqual(binding?.disabledReason(state), "This vault has no sync account: it no longer syncs.")
        var locked = membersPage()
        locked.page = .members(MembersState(isVaultLocked: true))
        XCTAssertEqual(binding?.disabledReason(locked), "Unlock the vault first: the invitation signs with your keys (or i: the command).")
    }
}
