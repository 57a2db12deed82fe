import ArgumentParser
import CofferCore
import CofferSystem
import Crypto
import Foundation

/// Clears the clipboard after `coffer copy` has returned: a short-lived helper (this binary, the
/// hidden `clipboard-clear` command) in a session of its own, so closing the terminal does not stop
/// it. It learns only the SHA-256 of the copied value, on its stdin: never the secret, which
/// would show on argv or in the environment.
enum ClipboardClearing {
    static func digest(of value: String) -> String {
        Hex.lowercase(SHA256.hash(data: Data(value.utf8)))
    }

    /// Starts the helper and hands it `digest`; returns at once.
    static func start(after seconds: Double, digest: String, terminal: String?) throws {
        let arguments = ["clipboard-clear", "--after", String(seconds)] + (terminal.map { ["--terminal", $0] } ?? [])
        guard ChildProcess.start("/proc/self/exe", name: "coffer", arguments: arguments, input: Data((digest + "\n").utf8),
                                 newSession: true) != nil else {
            throw CommandFailure("Could not start the helper that clears the clipboard; clear it yourself.")
        }
    }
}

/// `coffer clipboard-clear --after S`: waits, then clears the clipboard if it still holds the value
/// whose SHA-256 (hex) came on stdin. Internal to `coffer copy`.
struct ClipboardClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clipboard-clear", shouldDisplay: false)

    @Option var after: Double
    @Option var terminal: String?

    func run() async throws {
        guard let digest = readLine(strippingNewline: true), !digest.isEmpty else { return }
        try await Task.sleep(for: .seconds(after))
        let clipboard = ClipboardService.system()
        guard clipboard.hasHelper else {
            // OSC 52 cannot be read back: clear it regardless, as the screen does.
            terminal.map { TerminalClipboard(path: $0).write(OSC52.clear) }
            return
        }
        guard let current = await clipboard.read(), ClipboardClearing.digest(of: current) == digest else { return }
        await clipboard.clear()
    }
}
