import CofferCore
import CofferTestSupport
import Foundation
import XCTest

/// The vault picker in a real terminal, with `coffer` commands writing to the shared vault beside
/// the screen: one unlock opens both vaults, the counts follow the commands, L locks them all.
extension EndToEndTests {
    /// Runs `coffer` with `arguments` (the passphrase from a file) to its end; fails on a non-zero exit.
    func runCommand(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let passphrase = directory.appendingPathComponent("passphrase").path
        // Private, or `coffer` refuses to read it.
        XCTAssertTrue(FileManager.default.createFile(atPath: passphrase, contents: Data((PersonsVaults.passphrase + "\n").utf8),
                                                     attributes: [.posixPermissions: 0o600]))
        let result = try ToolProcess.run(Self.binary, arguments + ["--passphrase-file", passphrase])
        XCTAssertEqual(result.status, 0, "coffer \(arguments.joined(separator: " ")): \(result.output)", file: file, line: line)
    }

    /// The picker's row naming `text` (below the title bar, which names the vault on the screen).
    func pickerRow(_ tmux: Tmux, _ text: String) -> String {
        tmux.screen.split(separator: "\n").dropFirst().first { $0.contains(text) }.map(String.init) ?? ""
    }

    func testThePickerSwitchesVaultsOnOneUnlockBesideCommands() async throws {
        let now = Timestamp.now()
        let vaults = try await PersonsVaults.make(
            in: directory, personalItems: [Item(title: "Bank", entry: Entry(username: "ann"), created: now)],
            familyItems: [Item(title: "Netflix", entry: Entry(username: "ann"), created: now)])
        let tmux = try start(vault: vaults.personal)
        guard expectScreen(tmux, showing: "is locked") else { return }
        expect(tmux, "vault.db · personal")
        try tmux.type(PersonsVaults.passphrase)
        try tmux.send("Enter")
        expect(tmux, "1 item")

        try tmux.send("V")
        expect(tmux, "opens without asking")
        XCTAssertTrue(pickerRow(tmux, "family · shared").contains(" 1 "), tmux.screen)
        // A command writes to the shared vault beside the screen: the picker's count follows.
        try runCommand(["--vault", vaults.family, "add", "--title", "Disney", "--username", "ann"])
        let counted = tmux.wait(for: "2         🔓 opens without asking", timeout: 10)
        XCTAssertTrue(counted.found, counted.screen)

        // Enter on it: no passphrase asked; its items and its name in the title bar.
        try tmux.send("j", "Enter")
        expect(tmux, "Coffer · family · shared")
        expect(tmux, "Disney")
        XCTAssertTrue(tmux.screen.contains("Netflix") && !tmux.screen.contains("Bank"), tmux.screen)
        XCTAssertFalse(tmux.screen.contains("is locked"), tmux.screen)
        // The screen follows another command's write to the vault it now shows.
        try runCommand(["--vault", vaults.family, "add", "--title", "Hulu", "--username", "ann"])
        expect(tmux, "Hulu")
        expect(tmux, "3 items")

        // L locks them all: the picker then says both are locked, and the personal vault asks.
        try tmux.send("L")
        expect(tmux, "family · shared is locked")
        try tmux.send("F3")
        expect(tmux, "Vaults · 2")
        XCTAssertFalse(tmux.screen.contains("opens without asking"), tmux.screen)
        XCTAssertTrue(pickerRow(tmux, "vault.db · personal").contains("🔒 locked"), tmux.screen)
        try tmux.send("Home", "Enter")
        expect(tmux, "vault.db · personal is locked")
        try tmux.send("Escape")
        expect(tmux, "EXIT=0")
    }
}
