import CofferCore
import CofferSync

/// A person's claim on the Members page's invitation, with the card they sent (their name,
/// account and public keys, sealed to the exchange): asked about, then answered.
struct MemberTicket: Sendable, Equatable {
    let ticket: InvitationTicket
    let person: Person

    init(ticket: InvitationTicket, person: Person) {
        self.ticket = ticket
        self.person = person
    }
}
