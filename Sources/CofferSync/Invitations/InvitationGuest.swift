import CofferCore
import Foundation

/// The claiming side of an invitation (`coffer join --code`, `coffer receive`): finds the
/// rendezvous the code names, claims it once with a commitment to its key, reveals the key once
/// it read the inviter's, has its person compare the number, takes the answer only after a yes,
/// removes everything.
public struct InvitationGuest: Sendable {
    /// The number the person compares with the one the inviting device shows, before the answer
    /// is taken (`takeAnswer(confirmedBy:)`).
    public let confirmation: String
    let rendezvous: Rendezvous
    let agreement: PairingHandshake.Agreement
    let expires: Date
    /// Every record of the exchange as this side saw it, checked again before the answer is trusted.
    let records: [Rendezvous.Record: Rendezvous.Seen]

    /// Claims the invitation `code` names on `server`, as `name`, and exchanges keys with the
    /// inviter: on return both sides know the number.
    ///
    /// - Throws: `InvitationError` (`.unknown`, `.expired`, `.used`, `.tampered`, `.wrongKind`,
    ///   `.replaced`) or a `KintoError` when the server cannot be reached.
    public static func claim(server: URL, code: InvitationCode, kind: InvitationKind, name: String) async throws -> InvitationGuest {
        try await sendClaim(server: server, code: code, kind: kind, name: name).exchangeKeys()
    }

    /// A claim written, its key not yet revealed.
    struct PendingClaim: Sendable {
        let rendezvous: Rendezvous
        let handshake: PairingHandshake
        let offer: InvitationRecords.Offer
        let claim: InvitationRecords.Claim
        let records: [Rendezvous.Record: Rendezvous.Seen]

        var expires: Date { Timestamp(milliseconds: offer.expires).date }

        /// Waits for the inviter's key, then reveals this side's: the number follows from both.
        /// Anything amiss removes the rendezvous, so that the inviter stops too.
        func exchangeKeys(polling interval: TimeInterval = 0.25) async throws -> InvitationGuest {
            do {
                return try await revealAfterKey(polling: interval)
            } catch let error as InvitationError {
                try? await rendezvous.remove()
                throw error
            }
        }

        private func revealAfterKey(polling interval: TimeInterval) async throws -> InvitationGuest {
            while await rendezvous.serverNow() < expires {
                // Gone: the inviter gave up and removed the rendezvous.
                let found = try await rendezvous.read(.key, ifGone: .unknown)
                if let (object, seen) = found {
                    let inviter = try InvitationRecords.PublicKey(object)
                    let reveal = try await rendezvous.write(.reveal, InvitationRecords.PublicKey(key: handshake.publicKey).object)
                    let transcript = PairingTranscript(kind: offer.kind, expires: offer.expires, name: claim.name,
                                                       commitment: claim.commitment, inviterKey: inviter.key,
                                                       claimantKey: handshake.publicKey)
                    let agreement: PairingHandshake.Agreement
                    do {
                        agreement = try handshake.agree(transcript)
                    } catch {
                        throw InvitationError.tampered
                    }
                    var records = self.records
                    records[.key] = seen
                    records[.reveal] = reveal
                    // All this side writes is written; what is left is to wait for the answer.
                    CrashPoint.reach("pair.guest.after-claim")
                    return InvitationGuest(confirmation: agreement.confirmation, rendezvous: rendezvous, agreement: agreement,
                                           expires: expires, records: records)
                }
                try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
            }
            throw InvitationError.expired
        }
    }

    /// Reads the invitation and writes the claim: a name and a commitment to a key not shown yet.
    static func sendClaim(server: URL, code: InvitationCode, kind: InvitationKind, name: String) async throws -> PendingClaim {
        let rendezvous = Rendezvous(server: server, keys: try RendezvousKeys(code: code))
        // No such account: the code names nothing (any more).
        let found = try await rendezvous.read(.invite, ifGone: .unknown)
        guard let (object, invite) = found else { throw InvitationError.unknown }
        let offer = try InvitationRecords.Offer(object)
        guard offer.kind == kind.rawValue else {
            throw InvitationError.wrongKind(expected: Self.expectation(kind, offered: offer.kind))
        }
        guard await rendezvous.serverNow() < Timestamp(milliseconds: offer.expires).date else { throw InvitationError.expired }
        let handshake = PairingHandshake()
        // The name as the inviter will read it: no longer than it takes.
        var shortened = name
        while shortened.utf8.count > InvitationRecords.nameLimit { shortened.removeLast() }
        let claim = InvitationRecords.Claim(name: shortened, commitment: PairingTranscript.commitment(to: handshake.publicKey))
        let written = try await rendezvous.write(.claim, claim.object, alreadyThere: .used)
        return PendingClaim(rendezvous: rendezvous, handshake: handshake, offer: offer, claim: claim,
                            records: [.invite: invite, .claim: written])
    }

    /// What a code of the wrong kind is not, and which command it is for.
    static func expectation(_ kind: InvitationKind, offered: String) -> String {
        let command: String
        switch InvitationKind(rawValue: offered) {
        case .device?: command = "it invites a device: use `coffer join --code`"
        case .item?: command = "it sends an item: use `coffer receive`"
        case .share?: command = "it invites a person to a shared vault: use `coffer share join --code`"
        case nil: command = "it is of a kind this version does not know"
        }
        switch kind {
        case .device: return "a device invitation (\(command))"
        case .item: return "an item sent with `coffer send` (\(command))"
        case .share: return "an invitation to a shared vault (\(command))"
        }
    }

    /// Writes the joining person's public card (`share` invitations), sealed to the agreement so
    /// that only the inviter the number was compared with can read it and nobody else can write
    /// one it accepts. The returned guest checks it again with the other records.
    public func sendingPerson(_ card: Data) async throws -> InvitationGuest {
        let written = try await rendezvous.write(.person, ["card": try agreement.seal(card, label: "person")])
        var records = self.records
        records[.person] = written
        return InvitationGuest(confirmation: confirmation, rendezvous: rendezvous, agreement: agreement, expires: expires,
                               records: records)
    }

    /// Asks this side's person whether the other screen shows `confirmation` and, only after a
    /// yes, waits for the inviter's answer: the payload when allowed.
    ///
    /// The claimant cannot tell the inviter from someone else who knows the code and wrote `key`
    /// first (the real inviter then fails, but the claimant has no way to see it): only the
    /// person who sees both screens can. So the number is compared on this side too, as on the
    /// inviter's.
    ///
    /// `isConfirmed` is asked at once, right after the reveal, before the answer is read, not
    /// after it arrives: the number is fixed by the reveal and the answer adds nothing to compare,
    /// so both people are asked at the same time and neither waits on the other's decision first;
    /// a no removes the rendezvous, which ends the inviter's wait (often while it still asks its
    /// person, who then sees an error rather than "Done"); and after a no the answer is never
    /// opened. Taking the payload still needs both: the yes here, then the inviter's answer.
    ///
    /// - Throws: `InvitationError.unconfirmed` after a no (or an error from `isConfirmed`; the
    ///   rendezvous is removed either way), else what `waitForAnswer` throws.
    public func takeAnswer(confirmedBy isConfirmed: () throws -> Bool) async throws -> Data {
        let isConfirmedHere: Bool
        do {
            isConfirmedHere = try isConfirmed()
        } catch {
            try? await rendezvous.remove()
            throw error
        }
        guard isConfirmedHere else {
            try? await rendezvous.remove()
            throw InvitationError.unconfirmed
        }
        return try await waitForAnswer()
    }

    /// Waits for the inviter's answer, checks that no record of the exchange changed, then removes
    /// the rendezvous: the payload when allowed. Only after this side's person confirmed the
    /// number (`takeAnswer(confirmedBy:)`).
    ///
    /// - Throws: `InvitationError.declined`, `.expired` (no answer in time), `.tampered`, `.replaced`.
    func waitForAnswer(polling interval: TimeInterval = 0.5) async throws -> Data {
        defer { Task { [rendezvous] in try? await rendezvous.remove() } }
        while await rendezvous.serverNow() < expires {
            // Gone: the inviter gave up and removed the rendezvous.
            let found = try await rendezvous.read(.answer, ifGone: .unknown)
            if let (answer, _) = found {
                do {
                    try await rendezvous.confirmUnchanged(records)
                } catch {
                    try? await rendezvous.remove()
                    throw error
                }
                try await rendezvous.remove()
                // The code is spent and nothing is left on the server; this device has no vault yet.
                CrashPoint.reach("pair.guest.after-answer")
                guard let grant = try InvitationRecords.Answer(answer).grant else { throw InvitationError.tampered }
                do {
                    return try agreement.open(grant, label: "grant")
                } catch {
                    throw InvitationError.tampered
                }
            }
            try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
        }
        throw InvitationError.expired
    }
}
