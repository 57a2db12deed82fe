import CofferCore
import Foundation

/// Lists the messages addressed to this device into the inbox, with `If-None-Match` on the last
/// listing's ETag: an idle poll is one 304. The listing is complete (messages leave the server
/// once handled), so the inbox becomes exactly what it lists; ids handled before come in done.
enum MessageFetchStep {
    static func run(_ context: SyncContext) async throws -> Int {
        let me = try context.vault.deviceID()
        let marker = try context.database.syncRead { try $0.marker(.messages) }
        guard case .changes(let records, let etag) = try await context.client.listRecords(.messages, filter: ["recipient": me],
                                                                                          etag: marker)
        else { return 0 }
        let messages = records.compactMap(MessageRecord.decode).filter { $0.recipient == me }
        try context.database.syncWrite { store in
            try store.replaceInbox(with: messages)
            try store.setMarker(.messages, etag)
            CrashPoint.reach("sync.messages.fetch.inside")
        }
        return messages.count
    }
}
