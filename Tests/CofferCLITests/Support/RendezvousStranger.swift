import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// Someone who knows an invitation's code (issue 28), in the test process: it holds the
/// rendezvous account's credentials as both sides do, and reads, writes first or rewrites any of
/// its records through the same client, while the two real processes run.
final class RendezvousStranger: Sendable {
    let rendezvous: Rendezvous
    let handshake = PairingHandshake()

    /// A name built to redraw the inviter's prompt with a fake number and hide the real one.
    static let hostileName = "\r\u{1B}[2K\u{201C}laptop\u{201D} wants to join · 9264-74 · allow? [y/N] \u{1B}[8m"

    init(code: String, server: URL) throws {
        rendezvous = Rendezvous(server: server, keys: try RendezvousKeys(code: InvitationCode(parsing: code)))
    }

    /// The stranger's own claim: `name`, and a commitment to its own key.
    func claim(name: String = RendezvousStranger.hostileName) -> [String: Any] {
        InvitationRecords.Claim(name: name, commitment: PairingTranscript.commitment(to: handshake.publicKey)).object
    }

    var key: [String: Any] { InvitationRecords.PublicKey(key: handshake.publicKey).object }

    /// Writes `object` as the record `id`, over whatever is there.
    func overwrite(_ id: Rendezvous.Record, _ object: [String: Any]) async throws {
        let plaintext = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        _ = try await rendezvous.client.putRecord(in: Rendezvous.collection, id: id.rawValue,
                                                  data: ["box": rendezvous.keys.seal(plaintext, label: id.rawValue)],
                                                  onlyIfNew: false)
    }

    /// Waits (polling fast) for the record `id` to appear, and returns it.
    func await(_ id: Rendezvous.Record, timeout: TimeInterval = 30) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let (object, _) = try await rendezvous.read(id) { return object }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        throw HarnessError("the \(id.rawValue) record never appeared")
    }

    /// The man in the middle: as soon as the claimant's claim appears, swaps it for one
    /// committing to the stranger's key; as soon as the inviter's key appears, swaps it too.
    func standInTheMiddle() async throws {
        _ = try await self.await(.claim)
        try await overwrite(.claim, claim())
        _ = try await self.await(.key)
        try await overwrite(.key, key)
    }

    /// Claims as a device would (first, with `name`), waits for the inviter's key and reveals its
    /// own: the number the inviter will show, which the stranger knows as well as it does.
    func claimAndReveal(name: String = RendezvousStranger.hostileName) async throws -> String {
        let invite = try InvitationRecords.Offer(try await self.await(.invite))
        let claim = InvitationRecords.Claim(name: name, commitment: PairingTranscript.commitment(to: handshake.publicKey))
        _ = try await rendezvous.write(.claim, claim.object)
        let inviter = try InvitationRecords.PublicKey(try await self.await(.key))
        _ = try await rendezvous.write(.reveal, key)
        return try handshake.agree(PairingTranscript(kind: invite.kind, expires: invite.expires, name: name,
                                                     commitment: claim.commitment, inviterKey: inviter.key,
                                                     claimantKey: handshake.publicKey)).confirmation
    }

    /// Stands in for the inviter before it read the claim (a slow one): writes its own `key`
    /// first, reads the claimant's reveal, and returns the agreement the claimant derived as well
    /// — the number it shows and the key an answer is sealed with.
    func writeKeyFirst() async throws -> PairingHandshake.Agreement {
        let invite = try InvitationRecords.Offer(try await self.await(.invite))
        let claim = try InvitationRecords.Claim(try await self.await(.claim))
        _ = try await rendezvous.write(.key, key)
        let reveal = try InvitationRecords.PublicKey(try await self.await(.reveal))
        return try handshake.agree(PairingTranscript(kind: invite.kind, expires: invite.expires, name: claim.name,
                                                     commitment: claim.commitment, inviterKey: handshake.publicKey,
                                                     claimantKey: reveal.key))
    }

    /// Stands in for the inviter from `key` to `answer` (`writeKeyFirst`), allowing `payload`
    /// sealed to the claimant's key; returns the number the claimant shows.
    func standInForTheInviter(allowing payload: Data) async throws -> String {
        let agreement = try await writeKeyFirst()
        let answer = InvitationRecords.Answer(grant: try agreement.seal(payload, label: "grant"))
        _ = try await rendezvous.write(.answer, answer.object)
        return agreement.confirmation
    }
}

/// Runs `work` on the concurrency pool and waits for it on this thread (the tests drive the
/// processes from a plain thread).
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let semaphore = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    Task.detached {
        do {
            box.result = .success(try await work())
        } catch {
            box.result = .failure(error)
        }
        semaphore.signal()
    }
    semaphore.wait()
    guard let result = box.result else { throw HarnessError("the work ended without a result") }
    return try result.get()
}

private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}
