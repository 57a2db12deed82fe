import CofferCore
import Foundation

/// The throwaway account an invitation's two sides meet in, and its records, each written once
/// and in this order: `invite` (what is offered, until when), `claim` (the claimant's name and a
/// commitment to its key), `key` (the inviter's key, written after it read the claim), `reveal`
/// (the claimant's key, written after it read `key`), and `answer` (allowed or not, and the payload
/// sealed to the agreement).
///
/// Anyone who knows the code holds this account's credentials too, so each side remembers every
/// record as it saw it (`Seen`) and checks, before it trusts the exchange, that none was replaced.
struct Rendezvous: Sendable {
    static let collection = "rendezvous"

    enum Record: String, Sendable, CaseIterable {
        case invite, claim, key, reveal, answer
        /// A person joining a shared vault: their public keys and account, sealed to the agreement.
        case person
    }

    /// A record as one side wrote or read it: its sealed box and the server's timestamp of it. A
    /// record rewritten since — even with the same content — has another timestamp.
    struct Seen: Equatable, Sendable {
        var box: String
        var lastModified: Int64
    }

    let keys: RendezvousKeys
    let client: KintoClient

    init(server: URL, keys: RendezvousKeys, timeout: TimeInterval = 15) {
        self.keys = keys
        client = KintoClient(server: server, credentials: KintoCredentials(user: keys.accountName, password: keys.accountPassword),
                             timeout: timeout)
    }

    /// The record `id`, opened with the code's key, and how it was seen; nil when it is not there (yet).
    func read(_ id: Record) async throws -> (object: [String: Any], seen: Seen)? {
        guard let stored = try await client.record(in: Self.collection, id: id.rawValue) else { return nil }
        let object = try InvitationRecords.open(stored.fields, id: id.rawValue, keys: keys)
        return (object, Seen(box: stored.fields["box"] ?? "", lastModified: stored.lastModified))
    }

    /// `read`, with `gone` thrown when the account is no longer there (its credentials refused:
    /// the other side, or anyone with the code, removed it).
    func read(_ id: Record, ifGone gone: InvitationError) async throws -> (object: [String: Any], seen: Seen)? {
        do {
            return try await read(id)
        } catch KintoError.unauthorized {
            throw gone
        }
    }

    /// Writes the record `id` once, sealed with the code's key.
    ///
    /// - Throws: `alreadyThere` when the record exists and is not this write's own (an earlier
    ///   attempt whose answer was lost is recognised by its box).
    func write(_ id: Record, _ object: [String: Any], alreadyThere: InvitationError = .replaced) async throws -> Seen {
        let plaintext = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        let box = try keys.seal(plaintext, label: id.rawValue)
        if let lastModified = try await client.putRecord(in: Self.collection, id: id.rawValue, data: ["box": box], onlyIfNew: true) {
            return Seen(box: box, lastModified: lastModified)
        }
        guard let stored = try await client.record(in: Self.collection, id: id.rawValue), stored.fields["box"] == box else {
            throw alreadyThere
        }
        return Seen(box: box, lastModified: stored.lastModified)
    }

    /// Checks that every record in `seen` is still on the server exactly as it was seen.
    ///
    /// - Throws: `InvitationError.replaced` for a record changed, rewritten or removed since.
    func confirmUnchanged(_ seen: [Record: Seen]) async throws {
        for (id, expected) in seen.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let stored: KintoClient.StoredRecord?
            do {
                stored = try await client.record(in: Self.collection, id: id.rawValue)
            } catch KintoError.unauthorized {
                throw InvitationError.replaced  // the account itself was removed or its password changed
            }
            guard let stored, Seen(box: stored.fields["box"] ?? "", lastModified: stored.lastModified) == expected else {
                throw InvitationError.replaced
            }
        }
    }

    /// Removes the records and the account; nothing of the invitation stays on the server.
    func remove() async throws {
        try await client.deleteAccountAndData(user: keys.accountName)
    }

    /// Now by the server's clock, as far as this client's answers tell.
    func serverNow() async -> Date {
        let skew = await client.clockSkew
        return (skew?.corrected(Timestamp(Date())) ?? Timestamp(Date())).date
    }
}

/// What an invitation offers.
public enum InvitationKind: String, Sendable {
    /// The sync account, for a new device of the same vault.
    case device
    /// One item, for another person.
    case item
    /// A person, for a shared vault (architecture §17).
    case share
}
