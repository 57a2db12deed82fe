import CofferCore
import Foundation

/// The Devices page: listing the account's devices and sending them lock, sign-out or removal.
/// Lock and sign-out are only offered for verified devices (the key table's reasons).
extension Update {
    static func applyDevices(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        switch event {
        case .devicesLoaded(let devices):
            guard case .devices(var page) = state.page else { return [] }
            let selected = page.current?.id
            page.devices = DevicesState.ordered(devices)
            page.cursor = page.devices?.firstIndex { $0.id == selected } ?? min(page.cursor, max(0, devices.count - 1))
            state.page = .devices(page)
            return []
        case .invitationOpened(let code, let expires, let server):
            updateInvitation(in: &state) { $0 = DeviceInvitation(stage: .waiting(code: code, expires: expires, server: server)) }
            return []
        case .invitationClaimed(let ticket):
            let name = TerminalText.name(ticket.claim.name)
            // The question belongs to the Devices page that shows the invitation: asked over any
            // other page, a key typed there could answer it unread. That page gone, the answer is no.
            guard case .devices(let page) = state.page, page.invitation != nil else {
                state.notice = Notice("Declined \u{201C}\(name)\u{201D}: the Devices page that invited it was closed.",
                                      until: now.addingTimeInterval(Notice.lifetime))
                return [.answerInvitation(ticket, allow: false)]
            }
            guard state.overlay == nil else {
                state.heldClaim = ticket
                return []
            }
            askAboutClaim(ticket, in: &state)
            return []
        case .invitationFinished(let text):
            updateInvitation(in: &state) { $0 = nil }
            state.notice = Notice(text, until: now.addingTimeInterval(Notice.lifetime))
            guard case .devices = state.page else { return [] }
            return [.loadDevices]
        case .deviceActionFinished(let text):
            state.notice = Notice(text, until: now.addingTimeInterval(Notice.lifetime))
            // The message waits in the outbox: the scheduler's sync (one at a time) sends it now.
            let send = schedule(state.scheduler.handle(.manual, now: now), in: &state, now: now)
            guard case .devices = state.page else { return send }
            return [.loadDevices] + send
        default:
            return []
        }
    }

    static func performDevices(_ action: Action, in state: inout ScreenState, now: Date) -> [Effect] {
        if action == .openDevices {
            state.page = .devices(DevicesState())
            return [.loadDevices]
        }
        if action == .inviteDevice {
            guard case .devices(var page) = state.page, page.invitation == nil else { return [] }
            page.invitation = DeviceInvitation(stage: .opening)
            state.page = .devices(page)
            return [.openInvitation]
        }
        guard case .devices(let page) = state.page, let device = page.current else { return [] }
        let name = device.name ?? "the unverified device \(device.id.prefix(8))"
        switch action {
        case .lockDevice:
            state.notice = Notice("Sending lock to \(name)…", until: now.addingTimeInterval(Notice.lifetime))
            return [.sendToDevice(.lock, id: device.id, name: name)]
        case .signOutDevice:
            state.overlay = .confirm(Confirmation(question: "Sign \(name) out of the sync account?",
                                                  action: .signOutDevice(id: device.id, name: name), askedOn: .devices))
        case .removeDevice:
            state.overlay = .confirm(Confirmation(question: "Remove \(name) from the account?",
                                                  action: .removeDevice(id: device.id, name: name), askedOn: .devices))
        default:
            break
        }
        return []
    }

    /// The page's answer to a device action it asked to confirm.
    static func confirmed(_ action: Confirmation.Action) -> [Effect] {
        switch action {
        case .signOutDevice(let id, let name): return [.sendToDevice(.signout, id: id, name: name)]
        case .removeDevice(let id, let name): return [.removeDevice(id: id, name: name)]
        case .allowInvitation(let ticket): return [.answerInvitation(ticket, allow: true)]
        default: return []
        }
    }

    /// "4821-93 · “laptop” wants to join · allow?" over the Devices page. The number first: a name
    /// is someone else's text, shown escaped and cut short after it.
    private static func askAboutClaim(_ ticket: InvitationTicket, in state: inout ScreenState) {
        let name = TerminalText.name(ticket.claim.name)
        let question = "\(ticket.claim.agreement.confirmation) · \u{201C}\(name)\u{201D} wants to join · allow?"
        state.overlay = .confirm(Confirmation(question: question, action: .allowInvitation(ticket), askedOn: .devices))
    }

    /// A held claim (`ScreenState.heldClaim`) is asked once its page has no other question open,
    /// and declined when that page is gone; checked on every tick and event.
    static func settleHeldClaim(in state: inout ScreenState, now: Date) -> [Effect] {
        guard let ticket = state.heldClaim, state.overlay == nil else { return [] }
        state.heldClaim = nil
        guard case .devices(let page) = state.page, page.invitation != nil, !state.isLocked else {
            let name = TerminalText.name(ticket.claim.name)
            state.notice = Notice("Declined \u{201C}\(name)\u{201D}: the Devices page that invited it was closed.",
                                  until: now.addingTimeInterval(Notice.lifetime))
            return [.answerInvitation(ticket, allow: false)]
        }
        askAboutClaim(ticket, in: &state)
        return []
    }

    static func answerInvitation(_ ticket: InvitationTicket, allow: Bool, in state: inout ScreenState) -> [Effect] {
        updateInvitation(in: &state) { $0 = DeviceInvitation(stage: .answering) }
        return [.answerInvitation(ticket, allow: allow)]
    }

    /// Changes the invitation on the Devices page; nothing when another page is showing (the
    /// runtime's answer still arrives as a notice).
    private static func updateInvitation(in state: inout ScreenState, _ change: (inout DeviceInvitation?) -> Void) {
        guard case .devices(var page) = state.page else { return }
        change(&page.invitation)
        state.page = .devices(page)
    }

    /// Why a device action is not available on the selected row, or nil.
    static func needsOtherVerifiedDevice(_ state: ScreenState) -> String? {
        guard case .devices(let page) = state.page, let device = page.current else { return "No device is selected." }
        if device.isCurrent { return "That is this device." }
        return device.isVerified ? nil : "The device is unverified: it is never sent a message."
    }
}
