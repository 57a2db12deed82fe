import CofferCore
import Foundation
import GRDB

/// What a crash in the message steps must leave once every device recovered: the one message in
/// flight handled exactly once (one `handled` row on one device), nothing left in any inbox or
/// outbox, and no message on the server.
enum DeviceMessageCheck {
    static func deviceID(of device: CrashDevice) throws -> String {
        try read(device.path) { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'device_id'") ?? "" }
    }

    static func deliveredOnce(devices: [CrashDevice], server: URL, user: String, password: String) throws -> [String] {
        var problems: [String] = []
        var handled = 0
        for device in devices {
            let (done, inbox, outbox) = try read(device.path) { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM handled") ?? 0,
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM inbox") ?? 0,
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox") ?? 0)
            }
            handled += done
            if inbox != 0 || outbox != 0 { problems.append("\(device.name) still has \(inbox) inbox and \(outbox) outbox message(s)") }
        }
        if handled != 1 { problems.append("the message in flight was handled \(handled) time(s), not once") }
        let left = try CrashServer.recordIDs(server: server, user: user, password: password, collection: "messages")
        if !left.isEmpty { problems.append("messages left on the server: \(left)") }
        return problems
    }

    private static func read<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read(body)
    }
}
