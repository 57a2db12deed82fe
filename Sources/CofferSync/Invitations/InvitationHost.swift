import CofferCore
import Foundation

/// The inviting side of an invitation (`coffer device invite`, `coffer send`): opens the
/// rendezvous, takes a claim, shows its key only then, checks the claimant's reveal against its
/// commitment, answers once the person allowed it, removes everything.
///
/// Works while the vault is locked: what it hands over (the sync account, or an item the caller
/// has already opened) is given to it as bytes.
public struct InvitationHost: Sendable {
    public let code: InvitationCode
    public let expires: Date
    public let kind: InvitationKind
    let rendezvous: Rendezvous
    let handshake: PairingHandshake
    /// What the `invite` record offers (its expiry to the millisecond, as the transcript holds it).
    let offer: InvitationRecords.Offer
    /// The `invite` record as written, checked again with the rest before the answer.
    let invite: Rendezvous.Seen

    /// How long a code is valid unless told otherwise (the Airmail journal: ten minutes).
    public static let lifetime: TimeInterval = 600

    /// Opens a rendezvous on `server` for a new random code, kept in `database` as the vault's
    /// pending invitation (`InvitationLeftover`) from before its account exists on the server until
    /// `InvitationLeftover.forget`: a crash at any point leaves nothing the next sync cannot remove.
    /// One a crashed inviter of this vault left is removed first.
    ///
    /// - Throws: `KintoError` when the server cannot be reached or refuses new accounts.
    public static func open(server: URL, kind: InvitationKind, lifetime: TimeInterval = InvitationHost.lifetime,
                            rememberingIn database: VaultDatabase) async throws -> InvitationHost {
        try await open(server: server, kind: kind, lifetime: lifetime, remembering: database)
    }

    /// `open`, remembering the rendezvous in `database` when there is one (tests play an inviter
    /// with no vault).
    static func open(server: URL, kind: InvitationKind, lifetime: TimeInterval, remembering database: VaultDatabase?)
        async throws -> InvitationHost {
        if let database { await InvitationLeftover.removeLeftover(of: database) }
        while true {
            let code = InvitationCode.random()
            let keys = try RendezvousKeys(code: code)
            // The local clock is good enough until the server's expiry is known (below).
            try database.map {
                try InvitationLeftover(server: server, user: keys.accountName, password: keys.accountPassword,
                                       expires: Date().addingTimeInterval(lifetime)).remember(in: $0)
            }
            do {
                try await KintoClient.createAccount(server: server, user: keys.accountName, password: keys.accountPassword)
            } catch KintoError.accountExists {
                continue  // a code in use (one in 2⁵⁰): draw another
            }
            CrashPoint.reach("pair.host.after-open")
            let rendezvous = Rendezvous(server: server, keys: keys)
            _ = try await rendezvous.client.checkCredentials()  // also reads the server's clock
            let expires = await rendezvous.serverNow().addingTimeInterval(lifetime)
            let offer = InvitationRecords.Offer(kind: kind.rawValue, expires: Timestamp(expires).milliseconds)
            let invite = try await rendezvous.write(.invite, offer.object)
            let host = InvitationHost(code: code, expires: Timestamp(milliseconds: offer.expires).date, kind: kind,
                                      rendezvous: rendezvous, handshake: PairingHandshake(), offer: offer, invite: invite)
            try database.map { try host.leftover.remember(in: $0) }
            return host
        }
    }

    /// Someone who claimed the invitation and revealed the key it committed to: the name they
    /// gave and the number both sides show.
    public struct Claim: Sendable {
        /// As the claimant wrote it (at most 200 bytes): show it through `TerminalText.name`.
        public let name: String
        public let agreement: PairingHandshake.Agreement
        /// Every record of the exchange as this side saw it, checked again before the answer.
        let records: [Rendezvous.Record: Rendezvous.Seen]
    }

    /// A claim this side answered with its key, waiting for the claimant's reveal.
    struct PendingClaim: Sendable {
        let claim: InvitationRecords.Claim
        let records: [Rendezvous.Record: Rendezvous.Seen]
    }

    /// Waits for a claim until the invitation expires, then for the claimant's key.
    ///
    /// - Throws: `InvitationError.unclaimed` at expiry, `.tampered` for a record that does not
    ///   open, `.replaced` when a record was rewritten or a reveal does not match its commitment.
    public func waitForClaim(polling interval: TimeInterval = 1) async throws -> Claim {
        CrashPoint.reach("pair.host.waiting")
        let pending = try await takeClaim(polling: interval)
        return try await awaitReveal(of: pending, polling: min(interval, 0.25))
    }

    /// Reads the claim, then writes this side's key: only now, so the claimant's commitment was
    /// fixed before anyone could see the key it will be combined with.
    func takeClaim(polling interval: TimeInterval) async throws -> PendingClaim {
        while await rendezvous.serverNow() < expires {
            if let (object, seen) = try await rendezvous.read(.claim, ifGone: .replaced) {
                let claim = try InvitationRecords.Claim(object)
                let key = try await rendezvous.write(.key, InvitationRecords.PublicKey(key: handshake.publicKey).object)
                return PendingClaim(claim: claim, records: [.invite: invite, .claim: seen, .key: key])
            }
            try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
        }
        throw InvitationError.unclaimed
    }

    /// Reads the claimant's key, checks it against the commitment and every record against what
    /// this side saw, and derives the number over the whole exchange.
    func awaitReveal(of pending: PendingClaim, polling interval: TimeInterval) async throws -> Claim {
        while await rendezvous.serverNow() < expires {
            if let (object, seen) = try await rendezvous.read(.reveal, ifGone: .replaced) {
                let reveal = try InvitationRecords.PublicKey(object)
                let transcript = PairingTranscript(kind: offer.kind, expires: offer.expires,
                                                   name: pending.claim.name, commitment: pending.claim.commitment,
                                                   inviterKey: handshake.publicKey, claimantKey: reveal.key)
                // Not the key it committed to: someone swapped the claim or the reveal.
                guard transcript.isRevealMatchingCommitment else { throw InvitationError.replaced }
                let agreement: PairingHandshake.Agreement
                do {
                    agreement = try handshake.agree(transcript)
                } catch {
                    throw InvitationError.tampered
                }
                var records = pending.records
                records[.reveal] = seen
                try await rendezvous.confirmUnchanged(records)
                return Claim(name: pending.claim.name, agreement: agreement, records: records)
            }
            try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
        }
        throw InvitationError.expired
    }

    /// The card the claimant of a `share` invitation sends after its key (`InvitationGuest.sendingPerson`),
    /// opened with the agreement, and the claim with that record among those checked before the answer.
    ///
    /// - Throws: `.tampered` for a card that does not open, `.expired` when none comes in time.
    public func person(of claim: Claim, polling interval: TimeInterval = 0.25) async throws -> (card: Data, claim: Claim) {
        while await rendezvous.serverNow() < expires {
            if let (object, seen) = try await rendezvous.read(.person, ifGone: .replaced) {
                guard let sealed = object["card"] as? String, sealed.utf8.count <= 4096,
                      let card = try? claim.agreement.open(sealed, label: "person") else { throw InvitationError.tampered }
                var records = claim.records
                records[.person] = seen
                return (card, Claim(name: claim.name, agreement: claim.agreement, records: records))
            }
            try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
        }
        throw InvitationError.expired
    }

    /// Answers a claim: `payload` sealed to the agreement when allowed, a refusal otherwise —
    /// once every record is checked to be still as this side saw it.
    ///
    /// - Throws: `InvitationError.replaced` when one was changed (nothing is written then).
    public func answer(_ claim: Claim, allowing payload: Data?) async throws {
        try await rendezvous.confirmUnchanged(claim.records)
        let answer = InvitationRecords.Answer(grant: try payload.map { try claim.agreement.seal($0, label: "grant") })
        _ = try await rendezvous.write(.answer, answer.object)
    }

    /// Waits a little for the claimant to remove the rendezvous after reading the answer, then
    /// removes whatever is left.
    public func close(waiting seconds: TimeInterval = 30) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            do {
                _ = try await rendezvous.client.record(in: Rendezvous.collection, id: Rendezvous.Record.answer.rawValue)
            } catch KintoError.unauthorized {
                return  // the claimant removed the account
            }
            try await Task.sleep(nanoseconds: 500_000_000)
        }
        try await rendezvous.remove()
    }

    /// Removes the rendezvous now (expired, declined, or on the way out).
    public func remove() async throws {
        try await rendezvous.remove()
    }

    /// What to remember so that a run after a crash can remove this rendezvous.
    public var leftover: InvitationLeftover {
        InvitationLeftover(server: rendezvous.client.server, user: rendezvous.keys.accountName,
                           password: rendezvous.keys.accountPassword, expires: expires)
    }
}
