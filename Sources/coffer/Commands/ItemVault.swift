import CofferAgent
import CofferCore
import Foundation

/// What the item commands need of an unlocked vault: the vault itself (unlocked here with the
/// passphrase), or the agent that holds it unlocked (`AgentVault`; the keys stay in the agent).
protocol ItemVault: Sendable {
    /// The items `query` selects, and every item that cannot be read (with its state).
    func items(_ query: ItemQuery) async throws -> [ListedItem]
    /// The item `name` means (architecture §12): `noItemNamed` for none, `ambiguousName` for several.
    func item(named name: String) async throws -> Item
    func add(_ item: Item) async throws -> Item
    func update(_ item: Item, from base: Item) async throws -> SavedEdit
    func remove(_ id: String) async throws
    func addAll(_ items: [Item]) async throws
    /// Now by the server's clock as the vault's last sync measured it (times written, health ages).
    func now() async throws -> Date
    /// Files kept with items (architecture §2): added, removed, read back checked.
    func attach(_ data: Data, named name: String, to itemID: String) async throws -> Item
    func detach(_ name: String, from itemID: String) async throws -> Item
    func attachmentData(_ name: String, of item: Item) async throws -> (Attachment, Data)
}

extension ItemVault {
    /// The time TOTP codes are made for — this device's clock (`TOTPClock`) — and the warning to
    /// show beside them when the last sync found the server's clock too far from it.
    func totpTime() async throws -> (now: Date, warning: String?) {
        let device = Date()
        let server = try await now()
        let offset = Int64((server.timeIntervalSince1970 - device.timeIntervalSince1970) * 1000)
        return (device, TOTPClock.warning(offsetMilliseconds: offset))
    }
}

extension Vault: ItemVault {
    func items(_ query: ItemQuery) async throws -> [ListedItem] {
        // The trash is left out here, not by the listing: the screen's listing keeps it (its Trash view).
        if query.selectsEverything { return try listItems().filter { $0.item?.isTrashed != true } }
        guard let text = query.text else { return try listItems(where: query.matcher()) }
        return try searchItems(ItemMatcher(query: text), where: query.matcher())
    }

    func now() async throws -> Date { database.correctedNow() }
}

/// Every call one request to the agent (the methods are its own).
extension AgentVault: ItemVault {}
