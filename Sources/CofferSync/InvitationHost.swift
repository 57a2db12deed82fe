import CofferCore
import Foundation

/// The inviting side of an invitation (`coffer device invite`, `coffer send`): opens the
/// rendezvous, waits for a claim, answers it, removes everything.
///
/// Works while the vault is locked: what it hands over (the sync account, or an item the caller
/// has already opened) is given to it as bytes.
public struct InvitationHost: Sendable {
    public let code: InvitationCode
    public let expires: Date
    public let kind: InvitationKind
    let rendezvous: Rendezvous
    let handshake: PairingHandshake

    /// How long a code is valid unless told otherwise (seed 004: ten minutes).
    public static let lifetime: TimeInterval = 600

    /// Opens a rendezvous on `server` for a new random code, kept in `database` as the vault's
    /// pending invitation (`InvitationLeftover`) from before its account exists on the server until
    /// `InvitationLeftover.forget`: a crash at any point leaves nothing the next sync cannot remove.
    /// One a crashed inviter of this vault left is removed first.
    ///
    /// - Throws: `KintoError` when the server cannot be reached or refuses new accounts.
    public static func open(server: URL, kind: InvitationKind, lifetime: TimeInterval = InvitationHost.lifetime,
                            rememberingIn database: VaultDatabase) async throws -> InvitationHost {
        await InvitationLeftover.removeLeftover(of: database)
        while true {
            let code = InvitationCode.random()
            let keys = try RendezvousKeys(code: code)
            // The local clock is good enough until the server's expiry is known (below).
            try InvitationLeftover(server: server, user: keys.accountName, password: keys.accountPassword,
                                   expires: Date().addingTimeInterval(lifetime)).remember(in: database)
            do {
                try await KintoClient.createAccount(server: server, user: keys.accountName, password: keys.accountPassword)
            } catch KintoError.accountExists {
                continue  // a code in use (one in 2⁵⁰): draw another
            }
            CrashPoint.reach("pair.host.after-open")
            let rendezvous = Rendezvous(server: server, keys: keys)
            let handshake = PairingHandshake()
            _ = try await rendezvous.client.checkCredentials()  // also reads the server's clock
            let expires = await rendezvous.serverNow().addingTimeInterval(lifetime)
            let offer = InvitationRecords.Offer(kind: kind.rawValue, key: handshake.publicKey,
                                                expires: Timestamp(expires).milliseconds)
            try await rendezvous.write("invite", offer.object)
            let host = InvitationHost(code: code, expires: expires, kind: kind, rendezvous: rendezvous, handshake: handshake)
            try host.leftover.remember(in: database)
            return host
        }
    }

    /// Someone who claimed the invitation: the name they gave and the number both sides show.
    public struct Claim: Sendable {
        public let name: String
        public let agreement: PairingHandshake.Agreement
    }

    /// Waits for a claim until the invitation expires.
    ///
    /// - Throws: `InvitationError.unclaimed` at expiry, `.tampered` for a claim that does not open.
    public func waitForClaim(polling interval: TimeInterval = 1) async throws -> Claim {
        CrashPoint.reach("pair.host.waiting")
        while await rendezvous.serverNow() < expires {
            if let object = try await rendezvous.read("claim") {
                let claim = try InvitationRecords.Claim(object)
                let agreement = try handshake.agree(inviter: handshake.publicKey, claimant: claim.key)
                return Claim(name: String(claim.name.prefix(100)), agreement: agreement)
            }
            try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
        }
        throw InvitationError.unclaimed
    }

    /// Answers a claim: `payload` sealed to the claimant when allowed, a refusal otherwise.
    public func answer(_ claim: Claim, allowing payload: Data?) async throws {
        let answer = InvitationRecords.Answer(grant: try payload.map { try claim.agreement.seal($0, label: "grant") })
        try await rendezvous.write("answer", answer.object)
    }

    /// Waits a little for the claimant to remove the rendezvous after reading the answer, then
    /// removes whatever is left.
    public func close(waiting seconds: TimeInterval = 30) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            do {
                _ = try await rendezvous.client.record(in: Rendezvous.collection, id: "answer")
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
