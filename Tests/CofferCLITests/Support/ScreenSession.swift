import CofferTestSupport
import Foundation
import XCTest

/// The real `coffer` screen in a tmux window of its own (the shared `Tmux`), driven as a user
/// would: create or unlock the vault, add an item, wait for what the screen shows.
final class ScreenSession {
    struct TmuxMissing: Error, CustomStringConvertible {
        var description: String { "tmux is needed for the screen tests (make deps installs it)" }
    }

    private let tmux: Tmux

    /// Starts `coffer --vault PATH` (no command) in a 120×30 window; the shell prints its exit
    /// code when it ends, and the pane stays for inspection.
    init(vault: String, home: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        guard Tmux.isInstalled else {
            XCTFail("tmux is needed for the screen tests (make deps installs it)", file: file, line: line)
            throw TmuxMissing()
        }
        let binary = try CofferBinary.require(file: file, line: line)
        // Without XDG_CONFIG_HOME the configuration file is HOME's (`home/.config/coffer/config.toml`), never the machine's.
        let command = "env -u NO_COLOR -u XDG_CONFIG_HOME -u COFFER_VAULT LANG=C.UTF-8 TERM=tmux-256color HOME='\(home.path)' "
            + "'\(binary)' --vault '\(vault)' --auto-lock 0; echo \"EXIT=$?\"; sleep 600"
        tmux = try Tmux(command: command, width: 120, height: 30)
    }

    /// Keys as tmux names them (`Enter`, `Escape`, `End`, `C-u`…).
    func press(_ keys: String...) throws { try tmux.run(["send-keys", "-t", tmux.session] + keys) }

    /// Literal text.
    func type(_ text: String) throws { try tmux.type(text) }

    var screen: String { tmux.screen }

    /// What the screen put on the clipboard (tmux keeps what OSC 52 sets).
    var pasteBuffer: String { tmux.pasteBuffer }

    /// The pid of the `coffer` the pane's shell runs.
    var cofferPID: Int32? { tmux.programPID }

    /// Waits until `text` shows; fails the test with the screen when it does not within `timeout`.
    @discardableResult
    func expect(_ text: String, timeout: TimeInterval = 15, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        wait(until: { $0.contains(text) }, timeout: timeout, failure: "“\(text)” did not appear", file: file, line: line)
    }

    /// Waits until `text` is gone.
    @discardableResult
    func expectGone(_ text: String, timeout: TimeInterval = 15, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        wait(until: { !$0.contains(text) }, timeout: timeout, failure: "“\(text)” stayed", file: file, line: line)
    }

    private func wait(until isDone: (String) -> Bool, timeout: TimeInterval, failure: String,
                      file: StaticString, line: UInt) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var shown = screen
        while !isDone(shown) {
            guard Date() < deadline else {
                XCTFail("\(failure) within \(timeout) s; the screen shows:\n\(shown)", file: file, line: line)
                return false
            }
            Thread.sleep(forTimeInterval: 0.1)
            shown = screen
        }
        return true
    }

    /// Creates the vault from the first-run screen (passphrase twice) and waits for the list.
    func createVault(passphrase: String, file: StaticString = #filePath, line: UInt = #line) throws {
        expect("Passphrase", file: file, line: line)
        try type(passphrase)
        try press("Enter")
        try type(passphrase)
        try press("Enter")
        expect("Vault created", timeout: 30, file: file, line: line)
    }

    func unlock(passphrase: String, file: StaticString = #filePath, line: UInt = #line) throws {
        expect("Passphrase:", file: file, line: line)
        try type(passphrase)
        try press("Enter")
        expect("unlocked", timeout: 30, file: file, line: line)
    }

    /// Adds a login from the list page (`n`, the title, Enter) and waits for "Saved" (the
    /// screen's acknowledgement), then goes back to the list. Returns whether it came.
    @discardableResult
    func addItem(title: String, file: StaticString = #filePath, line: UInt = #line) throws -> Bool {
        try press("n")
        expect("New item · Login", file: file, line: line)
        try type(title)
        try press("Enter")
        let saved = expect("Saved “\(title)”", file: file, line: line)
        try press("Escape")
        return saved
    }
}
