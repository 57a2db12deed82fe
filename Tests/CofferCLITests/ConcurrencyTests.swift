import CofferCore
import Foundation
import XCTest

/// Several `coffer` processes on one vault at once (two terminals, or a script next to the screen).
final class ConcurrencyTests: XCTestCase {
    /// Each process unlocks with the key ring as it was then; saving the keystore must not drop the
    /// keys other processes added meanwhile, or their items could never be opened again.
    func testConcurrentAddsAndEditsKeepEveryItemReadable() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let titles = (1...8).map { "parallel \($0)" }
        let ids = try vault.addAll(titles.map { [$0, "--password", "pw-\($0)"] })
        XCTAssertEqual(Set(ids).count, 8)

        let listed = try vault.ok(["list", "--json"])
        XCTAssertEqual(listed.err, "", "some items lost their keys")
        XCTAssertEqual(Set(try listed.jsonArray().compactMap { $0["title"] as? String }), Set(titles))

        // Edits of different items side by side, with one more add among them.
        let results = try vault.okAll(ids.prefix(5).map { ["edit", $0, "--password", "new-\($0)"] } + [["add", "--title", "ninth"]])
        XCTAssertEqual(results.count, 6)
        let exported = try vault.ok(["export", "--format", "json", "-"])
        XCTAssertEqual(exported.err, "")
        let items = try exported.jsonArray()
        XCTAssertEqual(items.count, 9)
        for id in ids.prefix(5) {
            XCTAssertEqual(items.first { $0["id"] as? String == id }?["password"] as? String, "new-\(id)")
        }
    }

    /// A vault unlocked for a long time (the screen) opens items a `coffer add` saved meanwhile,
    /// instead of listing them as waiting for a key from another device.
    func testAnUnlockedVaultOpensItemsAnotherProcessAdded() async throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let screen = try Vault.open(at: vault.path)
        try await screen.unlock(passphrase: SecureBuffer(copying: Array(vault.passphrase.utf8)))
        let before = try await screen.listItems()
        XCTAssertEqual(before.count, 0)

        let id = try vault.add("added from a terminal", ["--password", "from-cli"])
        let listed = try await screen.listItems()
        XCTAssertEqual(listed.map(\.id), [id])
        XCTAssertEqual(listed.first?.state == .waitingForKey, false, "the open vault did not take in the new key")
        XCTAssertEqual(listed.first?.item?.entry.password, "from-cli")
        let item = try await screen.item(id)
        XCTAssertEqual(item.title, "added from a terminal")

        // And its own next add keeps the terminal's key (the keystore is merged, not overwritten).
        var own = Item(title: "added on the screen", created: .now())
        own.entry.password = "from-screen"
        try await screen.add(own)
        await screen.lock()
        let exported = try vault.ok(["export", "--format", "json", "-"])
        XCTAssertEqual(exported.err, "")
        XCTAssertEqual(Set(try exported.jsonArray().compactMap { $0["password"] as? String }), ["from-cli", "from-screen"])
    }
}
