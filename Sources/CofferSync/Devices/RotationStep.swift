import CofferCore
import Foundation

/// A password rotation this device started (`device rm --rotate`): the new password went to
/// every remaining device as a `credentials` message, and the account's password changes only
/// once none of those messages is left on the server (each was handled there, or expired), so no
/// remaining device is cut off before it knows the new one. The removed device never got one.
enum RotationStep {
    struct Pending: Codable, Equatable {
        var password: String
        var messages: [String]
        /// When the messages were sealed (ms): after the longest lifetime, rotate anyway.
        var started: Int64
    }

    /// Pure: rotate once no message is left, or once they all expired.
    static func isReady(_ pending: Pending, waiting: Int, now: Int64) -> Bool {
        waiting == 0 || now - pending.started > MessageTopic.credentials.lifetime
    }

    /// Returns whether the password changed.
    static func run(_ context: SyncContext, now: Int64) async throws -> Bool {
        guard let text = try context.database.meta(.pendingRotation),
              let pending = try? JSONDecoder().decode(Pending.self, from: Data(text.utf8)),
              var account = try SyncAccount.load(from: context.database) else { return false }
        var waiting = 0
        if !pending.messages.isEmpty,
           case .changes(let records, _) = try await context.client.listRecords(
               .messages, filter: ["in_id": pending.messages.joined(separator: ",")], etag: nil) {
            waiting = records.count
        }
        guard isReady(pending, waiting: waiting, now: now) else { return false }
        try await context.client.changeAccountPassword(user: account.user, to: pending.password)
        // The server took it: a crash here leaves the old password in meta and the new one in
        // `pendingRotation`; `SyncEngine.adoptNextPassword` takes it on the next refusal.
        account.password = pending.password
        try context.database.syncWrite { store in
            try store.setMeta([.accountPassword: pending.password, .pendingRotation: nil])
        }
        return true
    }
}
