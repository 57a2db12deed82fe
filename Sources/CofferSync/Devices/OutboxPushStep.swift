import CofferCore
import Foundation

/// Sends the messages queued while offline (or by a command that then synced). Each is created
/// with `If-None-Match: *`: when an earlier attempt got through and only its answer was lost, the
/// 412 says it is there, so a retry never makes a second copy. Leaves the outbox row only once the
/// server has the message.
enum OutboxPushStep {
    static func run(_ context: SyncContext) async throws -> Int {
        let queued = try context.database.syncRead { try $0.outbox() }
        for message in queued {
            _ = try await context.client.createRecord(.messages, id: message.id, record: Data(try message.text().utf8))
            CrashPoint.reach("sync.outbox.after-send")
            try context.database.syncWrite { try $0.removeFromOutbox(message.id) }
        }
        return queued.count
    }
}
