import CofferCore
import Foundation

/// The claiming side of an invitation (`coffer join --code`, `coffer receive`): finds the
/// rendezvous the code names, claims it once, waits for the answer, removes everything.
public struct InvitationGuest: Sendable {
    public let confirmation: String
    let rendezvous: Rendezvous
    let agreement: PairingHandshake.Agreement
    let expires: Date

    /// Claims the invitation `code` names on `server`, as `name`.
    ///
    /// - Throws: `InvitationError` (`.unknown`, `.expired`, `.used`, `.tampered`, `.wrongKind`)
    ///   or a `KintoError` when the server cannot be reached.
    public static func claim(server: URL, code: InvitationCode, kind: InvitationKind, name: String) async throws -> InvitationGuest {
        let rendezvous = Rendezvous(server: server, keys: try RendezvousKeys(code: code))
        let offer: [String: Any]
        do {
            guard let found = try await rendezvous.read("invite") else { throw InvitationError.unknown }
            offer = found
        } catch KintoError.unauthorized {
            throw InvitationError.unknown  // no such account: the code names nothing (any more)
        }
        let invite = try InvitationRecords.Offer(offer)
        guard invite.kind == kind.rawValue else {
            throw InvitationError.wrongKind(expected: kind == .device ? "a device invitation (it sends an item: use `coffer receive`)"
                                                                      : "an item sent with `coffer send` (it invites a device: use `coffer join --code`)")
        }
        let expires = Timestamp(milliseconds: invite.expires).date
        guard await rendezvous.serverNow() < expires else { throw InvitationError.expired }
        let handshake = PairingHandshake()
        let agreement = try handshake.agree(inviter: invite.key, claimant: handshake.publicKey)
        let claim = InvitationRecords.Claim(name: name, key: handshake.publicKey)
        guard try await rendezvous.write("claim", claim.object) else { throw InvitationError.used }
        CrashPoint.reach("pair.guest.after-claim")
        return InvitationGuest(confirmation: agreement.confirmation, rendezvous: rendezvous, agreement: agreement,
                               expires: expires)
    }

    /// Waits for the inviter's answer, then removes the rendezvous: the payload when allowed.
    ///
    /// - Throws: `InvitationError.declined`, `.expired` (no answer in time), `.tampered`.
    public func waitForAnswer(polling interval: TimeInterval = 0.5) async throws -> Data {
        defer { Task { [rendezvous] in try? await rendezvous.remove() } }
        while await rendezvous.serverNow() < expires {
            let found: [String: Any]?
            do {
                found = try await rendezvous.read("answer")
            } catch KintoError.unauthorized {
                throw InvitationError.unknown  // the inviter gave up and removed the rendezvous
            }
            if let answer = found {
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
