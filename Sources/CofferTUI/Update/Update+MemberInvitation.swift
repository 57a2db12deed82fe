import CofferCore
import Foundation

/// Inviting a person from the Members page (`I`): the code while it waits, then the number and the
/// person's card asked about ("allow?"), as `coffer share invite` asks on the command line. The
/// exchange and the roster's `add` are the runtime's (`SharedMembership.add`).
extension Update {
    static func inviteMember(in state: inout ScreenState) -> [Effect] {
        guard case .members(var page) = state.page, page.invitation == nil else { return [] }
        page.invitation = DeviceInvitation(stage: .opening)
        state.page = .members(page)
        return [.openMemberInvitation]
    }

    static func applyMemberInvitation(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        switch event {
        case .memberInvitationOpened(let code, let expires):
            updateMemberInvitation(in: &state) { $0 = DeviceInvitation(stage: .waiting(code: code, expires: expires, server: "")) }
            return []
        case .memberClaimed(let ticket):
            let name = TerminalText.name(ticket.person.name)
            // Asked only over the page that shows the invitation, and never over another question:
            // a key typed for that one would answer this one unread. Otherwise the answer is no.
            guard case .members(let page) = state.page, page.invitation != nil, !state.isLocked, state.overlay == nil else {
                state.notice = Notice("Declined \u{201C}\(name)\u{201D}: the Members page that invited them was busy or closed; invite again.",
                                      until: now.addingTimeInterval(Notice.lifetime))
                return [.answerMemberInvitation(ticket, allow: false)]
            }
            let vault = TerminalText.name(state.summary.share?.name ?? state.vaultName)
            let question = "\(ticket.ticket.claim.agreement.confirmation) · \u{201C}\(name)\u{201D} "
                + "(account \(TerminalText.name(ticket.person.account))) wants to join \u{201C}\(vault)\u{201D} · allow?"
            state.overlay = .confirm(Confirmation(question: question, action: .allowMember(ticket), askedOn: .members))
            return []
        case .memberInvitationFinished(let text):
            updateMemberInvitation(in: &state) { $0 = nil }
            state.notice = Notice(text, until: now.addingTimeInterval(Notice.lifetime))
            return [.reload]
        default:
            return []
        }
    }

    /// The answer to "allow?" (a no, or the question closed unanswered, is a refusal).
    static func answerMember(_ ticket: MemberTicket, allow: Bool, in state: inout ScreenState) -> [Effect] {
        updateMemberInvitation(in: &state) { $0 = DeviceInvitation(stage: .answering) }
        return [.answerMemberInvitation(ticket, allow: allow)]
    }

    private static func updateMemberInvitation(in state: inout ScreenState, _ change: (inout DeviceInvitation?) -> Void) {
        guard case .members(var page) = state.page else { return }
        change(&page.invitation)
        state.page = .members(page)
    }
}
