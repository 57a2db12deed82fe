import CofferCore
import Foundation

/// The throwaway account an invitation's two sides meet in, and its three records: `invite`
/// (the inviter's key, what is offered, until when), `claim` (the claimant's name and key, written
/// once), and `answer` (allowed or not, and the payload sealed to the claimant).
struct Rendezvous: Sendable {
    static let collection = "rendezvous"

    let keys: RendezvousKeys
    let client: KintoClient

    init(server: URL, keys: RendezvousKeys, timeout: TimeInterval = 15) {
        self.keys = keys
        client = KintoClient(server: server, credentials: KintoCredentials(user: keys.accountName, password: keys.accountPassword),
                             timeout: timeout)
    }

    /// The record `id`, opened with the code's key; nil when it is not there (yet).
    func read(_ id: String) async throws -> [String: Any]? {
        guard let data = try await client.record(in: Self.collection, id: id) else { return nil }
        return try InvitationRecords.open(data, id: id, keys: keys)
    }

    /// Writes the record `id` sealed with the code's key; false when `onlyIfNew` and it exists.
    @discardableResult
    func write(_ id: String, _ object: [String: Any], onlyIfNew: Bool = true) async throws -> Bool {
        let plaintext = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return try await client.putRecord(in: Self.collection, id: id, data: ["box": keys.seal(plaintext, label: id)],
                                          onlyIfNew: onlyIfNew)
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
}
