import CofferCore
import Foundation

/// Deletes on the server the messages handled or refused here, then forgets them; prunes
/// `handled` ids older than any message can live. A crash before the deletion leaves them done:
/// the next sync only deletes them.
enum MessageDeleteStep {
    static func run(_ context: SyncContext, now: Int64) async throws -> Int {
        let done = try context.database.syncRead { try $0.inbox() }.filter(\.isDone)
        for entry in done {
            CrashPoint.reach("sync.messages.delete.before")
            try await context.client.deleteRecord(.messages, id: entry.record.id)
            CrashPoint.reach("sync.messages.delete.after-send")
            try context.database.syncWrite { try $0.removeFromInbox(entry.record.id) }
        }
        try context.database.syncWrite { try $0.pruneHandled(expiredBefore: now - MessageTopic.longestLifetime) }
        return done.count
    }
}
