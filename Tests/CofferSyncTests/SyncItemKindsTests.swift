import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// Issue 30 on the real Kinto: a card, an identity and a note with custom fields reach the second
/// device identical; an item of a kind no version knows — with members no version knows, sealed
/// through the real path — is listed, edited, merged and synced back unchanged; the server sees
/// none of the fields in the clear.
final class SyncItemKindsTests: XCTestCase {
    var server: TestServer!
    var credentials: KintoCredentials!
    var directory: URL!

    override func setUp() async throws {
        server = try TestServer.require()
        credentials = try await server.makeAccount()
        directory = try temporaryDirectory(self)
    }

    private func pair() async throws -> (a: Device, b: Device) {
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        return (a, b)
    }

    func testEveryKindWithCustomFieldsSyncsIdentically() async throws {
        let (a, b) = try await pair()
        let card = try await a.vault.add(Item(title: "Visa", entry: Entry(
            kind: "card", notes: "the blue one",
            fields: ["cardholder": "A. Person", "number": "4111111111111111", "expiry_month": "7", "expiry_year": "2031",
                     "code": "123", "pin": "9876"],
            custom: [CustomField(label: "Bank", value: "ACME"), CustomField(label: "PIN hint", value: "birthday", type: .hidden)]),
            created: .now()))
        let identity = try await a.vault.add(Item(title: "Me", entry: Entry(
            kind: "identity", fields: ["first_name": "Ann", "last_name": "Person", "email": "ann@example.com",
                                       "passport": "X1234567"]), created: .now()))
        let note = try await a.vault.add(Item(title: "Safe combination", entry: Entry(
            kind: "note", notes: "12-34-56", custom: [CustomField(label: "Backup codes", value: "JBSWY3DPEHPK3PXP", type: .totp)]),
            created: .now()))
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let onB = try await b.items()
        for item in [card, identity, note] { XCTAssertEqual(onB[item.id], item, item.title) }

        // Nothing of the fields reaches the server in the clear.
        let raw = RawAccount(server: server, credentials: credentials)
        let stored = try await raw.records("items")
        let text = String(decoding: try JSONSerialization.data(withJSONObject: stored), as: UTF8.self)
        for secret in ["4111111111111111", "Person", "X1234567", "birthday", "ACME", "12-34-56", "cardholder", "custom"] {
            XCTAssertFalse(text.contains(secret), "the server holds \(secret) in the clear")
        }

        // A custom field added on each device, and the card's number changed on one: all kept.
        try await a.edit(card.id) { $0.entry.custom.append(CustomField(id: "on-a", label: "Branch", value: "Main St")) }
        try await b.edit(card.id) {
            $0.entry.custom.append(CustomField(id: "on-b", label: "IBAN", value: "DE00 1234", type: .hidden))
            $0.entry.fields["number"] = "4222222222222222"
        }
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        try await assertConverged([a, b])
        let itemsOnA = try await a.items()
        let merged = try XCTUnwrap(itemsOnA[card.id])
        XCTAssertEqual(Set(merged.entry.custom.map(\.label)), ["Bank", "PIN hint", "Branch", "IBAN"])
        XCTAssertEqual(merged.entry.fields["number"], "4222222222222222")
    }

    /// A newer version's item: a kind, entry members and item members this version does not know.
    func testAnItemOfAnUnknownKindIsListedEditedAndSyncedUnchanged() async throws {
        let (a, b) = try await pair()
        let json = #"""
        {"created":"2026-11-01T10:00:00.000Z","disabled":false,
         "entry":{"kind":"wallet-2030","notes":"","password":"","username":"","seed_words":"abandon ability able",
                  "chain":{"name":"mainnet","id":1},"custom":[{"id":"c1","label":"Exchange","type":"colour","value":"blue"}]},
         "history":[],"id":"future-item-1","modified":"2026-11-01T10:00:00.000Z","origins":[],"tags":["crypto"],
         "title":"Cold wallet","vaults_v9":{"shared":["household"]}}
        """#
        let future = try ItemCodec.decode(Data(json.utf8))
        XCTAssertEqual(future.entry.fields["seed_words"], "abandon ability able")
        XCTAssertEqual(future.entry.extra["chain"], .object(["name": .string("mainnet"), "id": .number(1)]))
        XCTAssertEqual(future.extra["vaults_v9"], .object(["shared": .array([.string("household")])]))
        // Sealed and stored as any item is (ItemSealing through the vault), then synced.
        _ = try await a.vault.add(future)
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        let itemsOnB = try await b.items()
        let onB = try XCTUnwrap(itemsOnB[future.id])
        XCTAssertEqual(onB.entry.kind, "wallet-2030")
        XCTAssertEqual(onB.entry.fields, future.entry.fields)
        XCTAssertEqual(onB.entry.extra, future.entry.extra)
        XCTAssertEqual(onB.entry.custom, future.entry.custom)
        XCTAssertEqual(onB.extra, future.extra)
        XCTAssertTrue(ItemMatcher(query: "cold").matches(onB))

        // Edited here (a title and a tag): everything it did not understand rides along.
        try await b.edit(future.id) {
            $0.title = "Cold wallet (B)"
            $0.tags.append("checked")
        }
        try await a.edit(future.id) { $0.entry.notes = "edited on A" }
        await b.syncExpectingSuccess()
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()
        try await assertConverged([a, b])
        let itemsBack = try await a.items()
        let back = try XCTUnwrap(itemsBack[future.id])
        XCTAssertEqual(back.title, "Cold wallet (B)")
        XCTAssertEqual(back.entry.notes, "edited on A")
        XCTAssertEqual(back.tags, ["crypto", "checked"])
        XCTAssertEqual(back.entry.fields, future.entry.fields)
        XCTAssertEqual(back.entry.extra, future.entry.extra)
        XCTAssertEqual(back.entry.custom, future.entry.custom)
        XCTAssertEqual(back.extra, future.extra)
        // Re-encoded here, the bytes still hold every member the newer version wrote.
        let bytes = String(decoding: try ItemCodec.encode(back), as: UTF8.self)
        for member in [#""vaults_v9":{"shared":["household"]}"#, #""seed_words":"abandon ability able""#,
                       #""chain":{"id":1,"name":"mainnet"}"#, #""type":"colour""#] {
            XCTAssertTrue(bytes.contains(member), "lost \(member): \(bytes)")
        }
    }
}
