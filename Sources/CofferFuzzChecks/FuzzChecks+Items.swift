import CofferCore
import Foundation

extension FuzzChecks {
    /// `ItemCodec.decode`: an item that decodes re-encodes to bytes that decode equal (a fixed
    /// point), seals and opens back equal, and its history patches apply without trouble.
    /// Padded as sealing pads it (spaces to its size class), the bytes decode to the same item
    /// or fail as they did; padded with another byte, they are refused (never a crash).
    public static func itemJSON(_ data: Data) throws {
        var copy = data
        let padded = ItemSealing.padded(&copy)
        guard padded.count == SizeClass.item(data.count), padded.prefix(data.count) == data else {
            throw FuzzViolation("padding \(data.count) bytes gave \(padded.count) bytes, not their class")
        }
        let decoded = try? ItemCodec.decode(data)
        guard (try? ItemCodec.decode(padded)) == decoded else { throw FuzzViolation("padding changed what the bytes decode to") }
        if decoded != nil, (try? ItemCodec.decode(data + Data([0]))) != nil { throw FuzzViolation("a NUL after an item was taken") }
        guard let item = decoded else { return }
        _ = ItemValidation.problems(in: item)
        try itemSurvivesVault(item, what: "a decoded item")
        var entry = item.entry.jsonValue
        for step in item.history {
            entry = MergePatch.apply(step.patch, to: entry)
            _ = Entry(jsonValue: entry)
        }
    }

    /// What the vault does with an item: encode it, decode it and, when `sealing`, seal and open it.
    static func itemSurvivesVault(_ item: Item, what: String, sealing: Bool = true) throws {
        let encoded: Data = try mustSucceed { try ItemCodec.encode(item) } else: { "\(what) does not encode: \($0)" }
        let again: Item = try mustSucceed { try ItemCodec.decode(encoded) } else: { _ in
            "\(what) encodes to JSON that does not decode: \(String(decoding: encoded, as: UTF8.self))"
        }
        guard again == item else {
            throw FuzzViolation("\(what) changed through encoding: \(String(decoding: encoded, as: UTF8.self))")
        }
        guard (try? ItemCodec.encode(again)) == encoded else {
            throw FuzzViolation("\(what): encoding is not a fixed point")
        }
        guard sealing, RecordID.isValid(item.id) else { return }
        let ring = KeyRing(hashingKey: SecureBuffer(copying: (0..<UInt8(KeyRing.keyLength)).map { $0 }))
        ring.addKey(for: item.id)
        let opened: Item = try mustSucceed {
            try ItemSealing.open(try ItemSealing.seal(item, ring: ring, lineage: .first), ring: ring)
        } else: {
            "\(what) does not seal and open: \($0)"
        }
        guard opened == item else { throw FuzzViolation("\(what) changed through sealing") }
    }


    /// `ItemExchange.parseExport`: refuses with `invalidImport` or returns valid items with
    /// distinct ids, each of which survives the vault, and exporting them imports back equal.
    public static func importFile(_ data: Data) throws {
        let items: [Item]
        do {
            items = try ItemExchange.parseExport(data, now: importNow)
        } catch let error as CoreError {
            guard case .invalidImport = error else { throw FuzzViolation("parseExport threw \(error)") }
            return
        } catch {
            throw FuzzViolation("parseExport threw \(error), not CoreError.invalidImport")
        }
        guard Set(items.map(\.id)).count == items.count else { throw FuzzViolation("imported a duplicate id") }
        for (index, item) in items.enumerated() {
            let problems = ItemValidation.problems(in: item)
            guard problems.isEmpty else { throw FuzzViolation("imported an invalid item: \(problems)") }
            try itemSurvivesVault(item, what: "an imported item", sealing: index == sealedIndex(of: data, among: items.count))
        }
        let exported: String = try mustSucceed { try ItemExchange.text(items.map(ItemExchange.exportObject)) } else: {
            "imported items do not export: \($0)"
        }
        let again: [Item] = try mustSucceed {
            try ItemExchange.parseExport(Data(exported.utf8), now: importNow)
        } else: {
            "an export of imported items does not import: \($0)\n\(exported)"
        }
        guard again == items else { throw FuzzViolation("export and import changed the items:\n\(exported)") }
    }

    /// The one item of an import an input seals (`InputChoice`): sealing is content-blind past the
    /// encoding every item goes through, and `itemJSON` seals every item it reads.
    static func sealedIndex(of data: Data, among count: Int) -> Int {
        count == 0 ? 0 : InputChoice.one(below: count, from: data)
    }
}
