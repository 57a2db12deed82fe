import CofferCore
import Foundation

/// What `coffer send` hands over and `coffer receive` takes: exactly one item, as an export.
///
/// The sender is whoever answered with the agreement's key, so what arrives is checked like any
/// file from elsewhere, and anything but one item is refused: a sender cannot slip in more than
/// the person on the receiving side was told about.
public enum SentItem {
    /// The payload for `item`: an export array of one.
    public static func payload(for item: Item) throws -> Data {
        Data(try ItemExchange.text([ItemExchange.exportObject(item)]).utf8)
    }

    /// The one item `payload` holds, with a new id (a copy of the sender's, not their item).
    ///
    /// - Throws: `InvitationError.notOneItem` for none or several, `CoreError.invalidImport` for
    ///   what is not an export.
    public static func item(from payload: Data, now: Timestamp) throws -> Item {
        let items = try ItemExchange.parseExport(payload, now: now)
        guard items.count == 1, var item = items.first else { throw InvitationError.notOneItem(count: items.count) }
        item.id = Item.newID()
        return item
    }
}
