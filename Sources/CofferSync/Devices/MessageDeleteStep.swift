import CofferCore
import Foundation

/// Deletes on the server the messages handled or refused here, then forgets them; prunes
/// `handled` ids older than any message can live. A crash before the deletion leaves them done:
/// the next sync only deletes them.
///
/// Each deletion also forgets the listing's ETag. A 404 counts as deleted, but one that did not
/// come from Kinto (a proxy, a misrouted request) leaves the message there and the collection
/// unchanged: with the old ETag every later listing would be a 304 and the message would stay on
/// the server for good. A full listing shows it again, already handled, and it is deleted again.
enum MessageDeleteStep {
    static func run(_ context: SyncContext, now: Int64) async throws -> Int {
        let done = try context.database.syncRead { try $0.inbox() }.filter(\.isDone)
        for entry in done {
            CrashPoint.reach("sync.messages.delete.before")
            try await context.client.deleteRecord(.messages, id: entry.record.id)
            CrashPoint.reach("sync.messages.delete.after-send")
            try context.database.syncWrite { store in
                try store.removeFromInbox(entry.record.id)
                try store.setMarker(.messages, nil)
            }
        }
        try context.database.syncWrite { try $0.pruneHandled(expiredBefore: now - MessageTopic.longestLifetime) }
        return done.count
    }
}
