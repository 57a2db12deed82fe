import CofferSync
import Foundation

/// An invitation opened from the Devices page (`i`), as far as it has come: the code shown while
/// it waits, then the claimant's name and confirmation number asked about (the Airmail journal).
struct DeviceInvitation: Sendable, Equatable {
    enum Stage: Sendable, Equatable {
        case opening
        case waiting(code: String, expires: Date, server: String)
        case answering
    }

    var stage: Stage

    init(stage: Stage) {
        self.stage = stage
    }
}

/// An open rendezvous and the claim on it, carried from the runtime through the state to the
/// answer. Compared by code: the host holds keys, not values to compare.
struct InvitationTicket: Sendable, Equatable {
    let host: InvitationHost
    let claim: InvitationHost.Claim

    init(host: InvitationHost, claim: InvitationHost.Claim) {
        self.host = host
        self.claim = claim
    }

    static func == (lhs: InvitationTicket, rhs: InvitationTicket) -> Bool {
        lhs.host.code == rhs.host.code && lhs.claim.name == rhs.claim.name
            && lhs.claim.agreement.confirmation == rhs.claim.agreement.confirmation
    }
}
