import CofferCore
import Foundation

/// One request to the agent. Items travel as their plaintext JSON (`ItemCodec`); keys never do.
///
/// On the wire, one JSON object: `operation` names the case, and its values sit beside it under
/// fixed keys (`{"operation":"item","name":"bank"}`, `{"operation":"renew","idle":60}`). A request
/// without a value its case needs, or with an operation this build does not know, does not decode:
/// the agent then closes the connection without an answer.
public enum AgentRequest: Sendable, Equatable {
    /// Who the agent is and when it locks; does not count as a use.
    case status
    /// Restarts the idle clock, with a new limit (seconds; 0: none) when one is given (`coffer unlock` again).
    case renew(idle: Double?)
    /// Wipe the keys and exit, once answered.
    case lock
    case items(ItemQuery)
    /// The item a name means (architecture §12).
    case item(name: String)
    case add(Item)
    /// An edit of `base`, merged with what was saved since (`Vault.update(_:from:)`).
    case update(Item, base: Item)
    case remove(id: String)
    /// An import: every item or none.
    case addAll([Item])
    /// Now by the vault's corrected clock.
    case now
    /// `coffer sync --unlock`: the agent syncs with its keys, so conflicts are merged.
    case sync
    /// The device commands (architecture §9): the account's devices, a message queued, a removal.
    case devices
    case queueMessage(MessageTopic, to: [String])
    case removeDevice(id: String, rotate: Bool)
    /// Files kept with items (`Vault+Attachments`): one added from its bytes, one removed, one read.
    case attach(itemID: String, name: String, data: Data)
    case detach(itemID: String, name: String)
    case attachment(itemID: String, name: String)

    /// The names on the wire, also in the crash points of the writes (`agent.add.after-write`).
    enum Operation: String, Codable, CaseIterable {
        case status, renew, lock, items, item, add, update, remove, addAll, now, sync, devices, queueMessage,
             removeDevice, attach, detach, attachment
    }

    var operation: Operation {
        switch self {
        case .status: return .status
        case .renew: return .renew
        case .lock: return .lock
        case .items: return .items
        case .item: return .item
        case .add: return .add
        case .update: return .update
        case .remove: return .remove
        case .addAll: return .addAll
        case .now: return .now
        case .sync: return .sync
        case .devices: return .devices
        case .queueMessage: return .queueMessage
        case .removeDevice: return .removeDevice
        case .attach: return .attach
        case .detach: return .detach
        case .attachment: return .attachment
        }
    }

    /// Whether the request may commit to the vault (its items' rows in the index are read again).
    var writes: Bool {
        switch self {
        case .status, .renew, .lock, .items, .item, .now, .devices, .attachment: return false
        case .add, .update, .remove, .addAll, .sync, .queueMessage, .removeDevice, .attach, .detach: return true
        }
    }
}

extension AgentRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case operation, query, name, id, item, base, items, idle, ids, topic, rotate, data
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Operation.self, forKey: .operation) {
        case .status: self = .status
        case .renew: self = .renew(idle: try container.decodeIfPresent(Double.self, forKey: .idle))
        case .lock: self = .lock
        // A listing of everything may come without a query.
        case .items: self = .items(try container.decodeIfPresent(ItemQuery.self, forKey: .query) ?? .everything)
        case .item: self = .item(name: try container.decode(String.self, forKey: .name))
        case .add: self = .add(try Self.item(container, .item))
        case .update: self = .update(try Self.item(container, .item), base: try Self.item(container, .base))
        case .remove: self = .remove(id: try container.decode(String.self, forKey: .id))
        case .addAll:
            var encoded = try container.decode([Data].self, forKey: .items)
            defer { for index in encoded.indices { wipe(&encoded[index]) } }
            self = .addAll(try encoded.map(ItemCodec.decode))
        case .now: self = .now
        case .sync: self = .sync
        case .devices: self = .devices
        case .queueMessage:
            self = .queueMessage(try container.decode(MessageTopic.self, forKey: .topic),
                                 to: try container.decode([String].self, forKey: .ids))
        case .removeDevice:
            self = .removeDevice(id: try container.decode(String.self, forKey: .id),
                                 rotate: try container.decode(Bool.self, forKey: .rotate))
        case .attach:
            self = .attach(itemID: try container.decode(String.self, forKey: .id), name: try container.decode(String.self, forKey: .name),
                           data: try container.decode(Data.self, forKey: .data))
        case .detach:
            self = .detach(itemID: try container.decode(String.self, forKey: .id), name: try container.decode(String.self, forKey: .name))
        case .attachment:
            self = .attachment(itemID: try container.decode(String.self, forKey: .id),
                               name: try container.decode(String.self, forKey: .name))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operation, forKey: .operation)
        switch self {
        case .status, .lock, .now, .sync, .devices:
            break
        case .renew(let idle):
            try container.encodeIfPresent(idle, forKey: .idle)
        case .items(let query):
            try container.encode(query, forKey: .query)
        case .item(let name):
            try container.encode(name, forKey: .name)
        case .add(let item):
            try container.encode(try ItemCodec.encode(item), forKey: .item)
        case .update(let item, let base):
            try container.encode(try ItemCodec.encode(item), forKey: .item)
            try container.encode(try ItemCodec.encode(base), forKey: .base)
        case .remove(let id):
            try container.encode(id, forKey: .id)
        case .addAll(let items):
            try container.encode(try items.map(ItemCodec.encode), forKey: .items)
        case .queueMessage(let topic, let ids):
            try container.encode(topic, forKey: .topic)
            try container.encode(ids, forKey: .ids)
        case .removeDevice(let id, let rotate):
            try container.encode(id, forKey: .id)
            try container.encode(rotate, forKey: .rotate)
        case .attach(let itemID, let name, let data):
            try container.encode(itemID, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(data, forKey: .data)
        case .detach(let itemID, let name), .attachment(let itemID, let name):
            try container.encode(itemID, forKey: .id)
            try container.encode(name, forKey: .name)
        }
    }

    private static func item(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Item {
        var encoded = try container.decode(Data.self, forKey: key)
        defer { wipe(&encoded) }
        return try ItemCodec.decode(encoded)
    }
}
