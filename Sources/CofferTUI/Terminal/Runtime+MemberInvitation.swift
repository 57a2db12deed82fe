import CofferCore
import CofferSync
import Foundation

/// The Members page's invitation: `coffer share invite`'s exchange (kind `share`: the person's
/// card sealed to the exchange), the question asked by the page, and the roster's `add`
/// (`SharedMembership.add`) signed with the member secrets the kept passphrase keys open.
extension Runtime {
    func openMemberInvitation() {
        guard let vault else { return }
        let inbox = self.inbox
        Task.detached {
            do {
                guard let membership = try SharedMembership(vault: vault) else {
                    return inbox.post(.memberInvitationFinished("This vault has no sync account: it no longer syncs."))
                }
                let host = try await InvitationHost.open(server: membership.account.server, kind: .share,
                                                         rememberingIn: vault.database)
                inbox.post(.memberInvitationOpened(code: host.code.description, expires: host.expires))
                do {
                    let (card, claim) = try await host.person(of: try await host.waitForClaim())
                    let person = try ShareInvitation.person(fromCard: card)
                    inbox.post(.memberClaimed(MemberTicket(ticket: InvitationTicket(host: host, claim: claim), person: person)))
                } catch {
                    // Expired, or a card that does not open: nothing is left behind.
                    try? await host.remove()
                    try? InvitationLeftover.forget(in: vault.database)
                    throw error
                }
            } catch {
                inbox.post(.memberInvitationFinished(Self.sentence(error)))
            }
        }
    }

    func answerMemberInvitation(_ ticket: MemberTicket, allow: Bool) {
        guard let vault else { return }
        let keys = kept.opening(vault)
        let inbox = self.inbox
        Task.detached {
            let host = ticket.ticket.host
            let name = "\u{201C}\(TerminalText.name(ticket.person.name))\u{201D}"
            do {
                var grant: Data?
                if allow {
                    guard let membership = try SharedMembership(vault: vault) else {
                        throw Refusal(description: "This vault has no sync account: it no longer syncs.")
                    }
                    guard let keys, let secrets = try vault.memberSecrets(keys: keys) else {
                        throw Refusal(description: "Lock and unlock again: this screen holds no key to sign the roster with.")
                    }
                    grant = try await membership.add(ticket.person, with: secrets).json
                }
                try await host.answer(ticket.ticket.claim, allowing: grant)
                try await host.close()
                try InvitationLeftover.forget(in: vault.database)
                inbox.post(.memberInvitationFinished(grant == nil
                    ? "Declined \(name); nothing was shared." : "\(name) joined; nothing is left on the server."))
            } catch {
                // The person hears no (or the code expires); the rendezvous goes.
                try? await host.answer(ticket.ticket.claim, allowing: nil)
                try? await host.remove()
                try? InvitationLeftover.forget(in: vault.database)
                inbox.post(.memberInvitationFinished("The invitation stopped: \(Self.sentence(error))"))
            }
        }
    }

    private struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    private nonisolated static func sentence(_ error: any Error) -> String {
        if let error = error as? InvitationError { return error.userMessage }
        if let error = error as? KintoError { return error.userMessage }
        return "\(error)"
    }
}
