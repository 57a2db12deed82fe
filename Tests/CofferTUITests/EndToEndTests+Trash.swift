import CofferCore
import Foundation
import XCTest

/// The trash in a real terminal (issue 43): `d` moves an item there, `Z` shows it, `r` brings it
/// back, `E` and a yes remove it for good — checked in the vault file afterwards.
extension EndToEndTests {
    func testTheTrashViewRestoresAndEmpties() throws {
        let now = Timestamp.now()
        let path = try makeVault(items: [
            Item(title: "Bank", entry: Entry(username: "alice", password: "b-pass"), created: now),
            Item(title: "Mail", entry: Entry(username: "alice", password: "m-pass"), created: now),
            Item(title: "Shop", entry: Entry(username: "alice", password: "s-pass"), created: now),
        ])
        let tmux = try start(vault: path)
        guard expectScreen(tmux, showing: "is locked") else { return }
        try tmux.type("correct horse")
        try tmux.send("Enter")
        expect(tmux, "3 items")

        // Bank and Mail to the trash: the list drops them, the Trash view lists them.
        for title in ["Bank", "Mail"] {
            try tmux.send("/")
            try tmux.type(title)
            expect(tmux, "1 of")
            try tmux.send("Enter")
            try tmux.send("d")
            expect(tmux, "Move “\(title)” to the trash?")
            try tmux.send("y")
            expect(tmux, "Moved “\(title)” to the trash")
            try tmux.send("Escape")
            try tmux.send("Escape")
        }
        expect(tmux, "1 item")
        try tmux.send("Z")
        expect(tmux, "Trash · 2 items")
        XCTAssertTrue(tmux.screen.contains("Bank") && tmux.screen.contains("Mail"), tmux.screen)

        // r restores the item at ▸ (the newest first: Mail).
        try tmux.send("r")
        expect(tmux, "Restored “Mail”")
        expect(tmux, "Trash · 1 item")

        // E asks, then empties.
        try tmux.send("E")
        expect(tmux, "Remove 1 item in the trash for good, on every device?")
        try tmux.send("y")
        expect(tmux, "Removed 1 item for good")
        expect(tmux, "The trash is empty.")
        try tmux.send("Escape")
        expect(tmux, "2 items")
        try tmux.send("q")
        expect(tmux, "EXIT=0")

        let vault = try Vault.open(at: path)
        let checked = expectation(description: "vault read")
        nonisolated(unsafe) var listed: [Item] = []
        Task {
            try? await vault.unlock(passphrase: SecureBuffer(copying: Array("correct horse".utf8)))
            listed = (try? await vault.listItems().compactMap(\.item)) ?? []
            await vault.lock()
            checked.fulfill()
        }
        wait(for: [checked], timeout: 20)
        XCTAssertEqual(Set(listed.map(\.title)), ["Mail", "Shop"], "Bank removed for good")
        XCTAssertTrue(listed.allSatisfy { $0.trashed == nil }, "Mail restored")
    }
}
