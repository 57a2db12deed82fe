import CofferCore
import CofferSync
import Foundation

/// One request to the agent. Items travel as their plaintext JSON (`ItemCodec`); keys never do.
struct AgentRequest: Codable {
    enum Operation: String, Codable {
        /// Who the agent is and when it locks; does not count as a use.
        case status
        /// Restarts the idle clock, with a new limit if `idle` is set (`coffer unlock` again).
        case renew
        case lock
        case items, item, add, update, remove, addAll, now
        /// `coffer sync --unlock`: the agent syncs with its keys, so conflicts are merged.
        case sync
        /// The device commands (architecture §9): the account's devices, a message queued, a removal.
        case devices, queueMessage, removeDevice

        /// Whether the operation may commit to the vault (the kept listing is then stale).
        var writes: Bool {
            switch self {
            case .status, .renew, .lock, .items, .item, .now, .devices: return false
            case .add, .update, .remove, .addAll, .sync, .queueMessage, .removeDevice: return true
            }
        }
    }

    var operation: Operation
    var query: ItemQuery?
    var name: String?
    var id: String?
    var item: Data?
    var base: Data?
    var items: [Data]?
    var idle: Double?
    var ids: [String]?
    var topic: MessageTopic?
    var rotate: Bool?
}

/// The agent's answer: `failure`, or the fields its operation fills.
struct AgentResponse: Codable {
    struct Failure: Codable {
        var exitCode: Int32
        var message: String
    }

    var failure: Failure?
    var status: AgentStatus?
    var listed: [WireListedItem]?
    var item: Data?
    var mergedWithNewer: Bool?
    var conflicts: [String]?
    /// Milliseconds since 1970 by the corrected clock.
    var now: Double?
    var sync: SyncOutcome?
    var devices: [KnownDevice]?
}

/// What `coffer status` shows of an agent.
struct AgentStatus: Codable {
    var pid: Int32
    /// The vault's real path: a client checks that the agent it reached holds its vault.
    var vault: String
    /// The idle limit (0: none) and the seconds left before it locks.
    var idleSeconds: Double
    var locksInSeconds: Double?
}

/// A `ListedItem` on the wire.
struct WireListedItem: Codable {
    var id: String
    var item: Data?
    /// Set when the item cannot be read: "waitingForKey", or the reason it is damaged.
    var unreadable: String?
    var local: Bool
    var conflict: Bool
    var review: Bool

    static let waitingForKey = "waitingForKey"

    init(_ listed: ListedItem) throws {
        id = listed.id
        switch listed.state {
        case .ready(let item): self.item = try ItemCodec.encode(item)
        case .waitingForKey: unreadable = Self.waitingForKey
        case .corrupt(let reason): unreadable = reason
        }
        local = listed.hasLocalChange
        conflict = listed.hasConflict
        review = listed.needsReview
    }

    func listedItem() throws -> ListedItem {
        let state: ListedItem.State
        if let item {
            state = .ready(try ItemCodec.decode(item))
        } else if unreadable == Self.waitingForKey {
            state = .waitingForKey
        } else {
            state = .corrupt(unreadable ?? "unreadable")
        }
        return ListedItem(id: id, state: state, hasLocalChange: local, hasConflict: conflict, needsReview: review)
    }
}

/// How a sync ended, as `coffer sync` reports it: the same whether this process or the agent ran it.
struct SyncOutcome: Codable {
    var error: SyncErrorName?
    var message: String?
    var downloaded: Int
    var uploaded: Int
    var merged: Int
    var clockWarning: String?
    /// Set when the vault, not the server, stopped the sync (`SyncReport.isLocalFailure`).
    var isLocalFailure: Bool?

    init(_ report: SyncReport) {
        error = report.error
        message = report.message
        downloaded = report.downloaded
        uploaded = report.uploaded
        merged = report.merged
        clockWarning = report.clockSkew?.warning
        isLocalFailure = report.isLocalFailure
    }
}
