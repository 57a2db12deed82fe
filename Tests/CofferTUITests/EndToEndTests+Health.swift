import CofferCore
import Foundation
import XCTest

/// The Health page in a real terminal, beside a command that changes the vault meanwhile.
extension EndToEndTests {
    func testHealthPageListsReusedPasswordsAndSeesAnotherProcessFixOne() throws {
        let now = Timestamp.now()
        let path = try makeVault(items: [
            Item(title: "Bank", entry: Entry(username: "alice", password: "s3cret!"), created: now),
            Item(title: "Shop", entry: Entry(username: "alice", password: "s3cret!"), created: now),
            Item(title: "Notes", entry: Entry(username: "alice", password: "lantern quiet orbit marble fjord"), created: now),
        ])
        let tmux = try start(vault: path)
        guard expectScreen(tmux, showing: "is locked") else { return }
        try tmux.type("correct horse")
        try tmux.send("Enter")
        expect(tmux, "3 items")
        try tmux.send("H")
        expect(tmux, "Health · 2 items to fix")
        expect(tmux, "reused in 1 other item")
        XCTAssertFalse(tmux.screen.contains("Notes"), "a strong, unique password is not listed")
        try tmux.send("Enter")
        expect(tmux, "⚠ password weak")
        try tmux.send("Escape")
        expect(tmux, "Health · 2 items to fix")

        // Another process gives Shop a strong password: the page checks again by itself.
        let vault = try Vault.open(at: path)
        let changed = expectation(description: "changed by another process")
        Task {
            try? await vault.unlock(passphrase: SecureBuffer(copying: Array("correct horse".utf8)))
            if var shop = try? await vault.listItems().compactMap(\.item).first(where: { $0.title == "Shop" }) {
                shop.entry.password = "violet granite harbour cobweb plume"
                _ = try? await vault.update(shop)
            }
            await vault.lock()
            changed.fulfill()
        }
        wait(for: [changed], timeout: 20)
        expect(tmux, "Health · 1 item to fix")
        XCTAssertFalse(tmux.screen.contains("reused"), tmux.screen)
        try tmux.send("q")
        expect(tmux, "EXIT=0")
    }
}
