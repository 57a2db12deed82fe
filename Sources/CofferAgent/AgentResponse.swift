import CofferCore
import Foundation

/// The agent's answer to one request: a failure, or the one kind of answer the request calls for.
///
/// On the wire, one JSON object whose key names the case: `{"failure":{"exitCode":4,"message":…}}`,
/// `{"status":{…}}`, `{"listed":[…]}`, `{"item":…}` (with `mergedWithNewer` and `conflicts` for an
/// edit), `{"now":…}`, `{"sync":{…}}`, `{"devices":[…]}`, and `{}` for a request that only had
/// something done. An object with two of these keys, or a value that does not decode, is malformed.
public enum AgentResponse: Sendable, Equatable {
    case failure(AgentFailure)
    /// To `status` and `renew`.
    case status(AgentStatus)
    /// To `lock`, `remove`, `addAll`, `queueMessage` and `removeDevice`: done, nothing to tell.
    case done
    /// To `items`: what the query selects, and every item that cannot be read.
    case items([ListedItem])
    /// To `item` and `add`: the item as the vault holds it.
    case item(Item)
    /// To `update`: the item as saved, and what merging it with a newer version did.
    case saved(SavedEdit)
    /// To `now`: the vault's corrected clock.
    case now(Date)
    /// To `sync`.
    case sync(SyncOutcome)
    /// To `devices`.
    case devices([KnownDevice])
    /// To `attachment`: the file's reference and its bytes.
    case file(Attachment, Data)

    /// What the answer is, for a sentence about an answer that does not fit its request.
    var summary: String {
        switch self {
        case .failure: return "a failure"
        case .status: return "its status"
        case .done: return "nothing"
        case .items: return "a listing"
        case .item: return "an item"
        case .saved: return "a saved edit"
        case .now: return "the time"
        case .sync: return "a sync report"
        case .devices: return "devices"
        case .file: return "a file"
        }
    }
}

extension AgentResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case failure, status, listed, item, mergedWithNewer, conflicts, now, sync, devices, file
    }

    /// A file on the wire: `{"attachment": {…}, "data": base64}`.
    private struct WireFile: Codable {
        var attachment: Attachment
        var data: Data
    }

    /// The keys that name a case; `mergedWithNewer` and `conflicts` only come with an `item`.
    private static let answerKeys: [CodingKeys] = [.failure, .status, .listed, .item, .now, .sync, .devices, .file]

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let answers = Self.answerKeys.filter(container.contains)
        guard answers.count <= 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "two answers in one: \(answers)"))
        }
        let isEdit = container.contains(.mergedWithNewer)
        switch answers.first {
        case nil where !isEdit:
            self = .done
        case .failure?:
            self = .failure(try container.decode(AgentFailure.self, forKey: .failure))
        case .status?:
            self = .status(try container.decode(AgentStatus.self, forKey: .status))
        case .listed?:
            self = .items(try container.decode([WireListedItem].self, forKey: .listed).map { try $0.listedItem() })
        case .item? where isEdit:
            self = .saved(SavedEdit(item: try Self.item(container), mergedWithNewer: try container.decode(Bool.self, forKey: .mergedWithNewer),
                                    conflicts: try container.decode([String].self, forKey: .conflicts)))
        case .item?:
            self = .item(try Self.item(container))
        case .now?:
            self = .now(Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .now) / 1000))
        case .sync?:
            self = .sync(try container.decode(SyncOutcome.self, forKey: .sync))
        case .devices?:
            self = .devices(try container.decode([KnownDevice].self, forKey: .devices))
        case .file?:
            let file = try container.decode(WireFile.self, forKey: .file)
            self = .file(file.attachment, file.data)
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "an edit's result without its item"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .failure(let failure):
            try container.encode(failure, forKey: .failure)
        case .status(let status):
            try container.encode(status, forKey: .status)
        case .done:
            break
        case .items(let listed):
            try container.encode(try listed.map(WireListedItem.init), forKey: .listed)
        case .item(let item):
            try container.encode(try ItemCodec.encode(item), forKey: .item)
        case .saved(let saved):
            try container.encode(try ItemCodec.encode(saved.item), forKey: .item)
            try container.encode(saved.mergedWithNewer, forKey: .mergedWithNewer)
            try container.encode(saved.conflicts, forKey: .conflicts)
        case .now(let date):
            // Milliseconds since 1970.
            try container.encode(date.timeIntervalSince1970 * 1000, forKey: .now)
        case .sync(let outcome):
            try container.encode(outcome, forKey: .sync)
        case .devices(let devices):
            try container.encode(devices, forKey: .devices)
        case .file(let attachment, let data):
            try container.encode(WireFile(attachment: attachment, data: data), forKey: .file)
        }
    }

    private static func item(_ container: KeyedDecodingContainer<CodingKeys>) throws -> Item {
        var encoded = try container.decode(Data.self, forKey: .item)
        defer { wipe(&encoded) }
        return try ItemCodec.decode(encoded)
    }
}

/// A `ListedItem` on the wire: its item as `ItemCodec` JSON, or why it cannot be read.
private struct WireListedItem: Codable {
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
