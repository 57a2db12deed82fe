import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// Revoking a member from the Members page (`X`, asked first): what the key refuses, the
/// question (a name someone chose, escaped), the work while it runs and its end; and the
/// invitation another process has open, listed as pending.
final class MembersRevokeTests: XCTestCase {
    let now = FakeClock.start
    static let hostile = "Mal\u{1B}]52;c;eA==\u{07}\u{202E}"

    static func member(_ id: String, _ name: String, isYou: Bool = false, at position: Int) -> SharedVaultSummary.Member {
        SharedVaultSummary.Member(id: id, name: name, account: name.lowercased(), addedBy: "ann", addedByName: "Ann",
                                  addedAt: position, isYou: isYou)
    }

    /// Bob's screen, unlocked, on the Members page of "family": Ann, Bob (you), the hostile name.
    func membersPage() -> ScreenState {
        var state = Fixtures.unlocked()
        state.summary.share = SharedVaultSummary(name: "family", members: [
            Self.member("ann", "Ann", at: 0), Self.member("bob", "Bob", isYou: true, at: 1), Self.member("mal", Self.hostile, at: 2),
        ], epoch: 1, entries: 3)
        _ = Update.apply(.key(.character("M")), to: &state, now: now)
        return state
    }

    func testRevokingAsksThenRunsThenSaysSo() {
        var state = membersPage()
        _ = Update.apply(.key(.end), to: &state, now: now)
        XCTAssertEqual(Update.apply(.key(.character("X")), to: &state, now: now), [])
        guard case .confirm(let question) = state.overlay else { return XCTFail("nothing asked") }
        XCTAssertEqual(question.action, .revokeMember(id: "mal", name: Self.hostile))
        XCTAssertTrue(question.question.hasPrefix("Revoke “Mal\\e]52;c;eA==\\a\\u202E” (account "), question.question)
        let asked = Render.frame(state, size: .standard, now: now).text
        XCTAssertFalse(asked.contains("\u{1B}") || asked.contains("\u{202E}"), "a raw control reached the grid")

        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: now), [.revokeMember(id: "mal", name: Self.hostile)])
        guard case .members(let page) = state.page else { return XCTFail("left the page") }
        XCTAssertEqual(page.revoking, Self.hostile)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "members-revoking")
        XCTAssertEqual(Update.apply(.key(.character("X")), to: &state, now: now), [], "one at a time")
        XCTAssertEqual(state.notice?.text, "Revoking “Mal\\e]52;c;eA==\\a\\u202E”…")

        let effects = Update.apply(.memberRevoked("Revoked “Mal”: the server refuses their account from now on."), to: &state, now: now)
        XCTAssertEqual(effects, [.reload, .startSync(.manual)], "the stored roster shows; the sync fetches the new epoch's key")
        guard case .members(let after) = state.page else { return XCTFail("left the page") }
        XCTAssertNil(after.revoking)
        XCTAssertEqual(state.notice?.text, "Revoked “Mal”: the server refuses their account from now on.")
    }

    func testAFailedRevocationSaysWhy() {
        var state = membersPage()
        _ = Update.apply(.key(.home), to: &state, now: now)
        _ = Update.apply(.key(.character("X")), to: &state, now: now)
        _ = Update.apply(.key(.character("y")), to: &state, now: now)
        XCTAssertEqual(Update.apply(.memberRevokeFailed("The revocation stopped: the server cannot be reached."), to: &state, now: now),
                       [.reload])
        XCTAssertEqual(state.notice?.isError, true)
        guard case .members(let page) = state.page else { return XCTFail("left the page") }
        XCTAssertNil(page.revoking)
    }

    func testWhatTheKeyRefuses() {
        var state = membersPage()
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        let binding = KeyBindings.binding(for: .character("X"), in: .members)
        XCTAssertEqual(binding?.disabledReason(state), "That is you: `coffer --vault NAME share leave` takes you out.")
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        XCTAssertNil(binding?.disabledReason(state))
        var noAccount = state
        noAccount.scheduler.hasAccount = false
        XCTAssertEqual(binding?.disabledReason(noAccount), "This vault has no sync account: it no longer syncs.")
        var notMember = state
        notMember.summary.share?.members.removeAll { $0.isYou }
        XCTAssertEqual(binding?.disabledReason(notMember), "You are not a member of this vault's roster: you cannot revoke anyone.")
        var locked = state
        locked.page = .members(MembersState(isVaultLocked: true))
        XCTAssertEqual(binding?.disabledReason(locked), "Unlock the vault first: revoking signs with your keys.")
    }

    /// The question goes when its member does (a reload after another device's revocation).
    func testTheQuestionClosesWhenTheMemberIsGone() {
        var state = membersPage()
        _ = Update.apply(.key(.end), to: &state, now: now)
        _ = Update.apply(.key(.character("X")), to: &state, now: now)
        var summary = state.summary
        summary.share?.members.removeLast()
        _ = Update.apply(.reloaded(items: nil, summary: summary), to: &state, now: now)
        XCTAssertNil(state.overlay)
        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: now), [], "no later key answers it")
    }

    func testAPendingInvitationIsListed() {
        var state = membersPage()
        state.summary.share?.invitationWaitsUntil = now.addingTimeInterval(600)
        let text = Render.frame(state, size: .standard, now: now).text
        XCTAssertTrue(text.contains("Pending: an invitation (`share invite`) waits for its person until 09:10:00."), text)
        XCTAssertTrue(KeyBindings.hints(for: state).contains("X revoke"))
    }
}
