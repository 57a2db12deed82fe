import ArgumentParser
import CofferTUI
import Crypto
import Foundation

/// Clears the clipboard after `coffer copy` has returned: a short-lived helper (this binary, the
/// hidden `clipboard-clear` command) in a session of its own, so closing the terminal does not stop
/// it. It learns only the SHA-256 of the copied value, on its stdin: never the secret, which
/// would show on argv or in the environment.
enum ClipboardClearing {
    static func digest(of value: String) -> String {
        SHA256.hash(data: Data(value.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// glibc's POSIX_SPAWN_SETSID, which Swift does not import (it needs _GNU_SOURCE).
    private static let spawnInNewSession: Int16 = 0x80

    /// Starts the helper and hands it `digest`; returns at once.
    static func start(after seconds: Double, digest: String, terminal: String?) throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw CommandFailure("Cannot start the clipboard clearing helper.") }
        // Neither end may leak into the helper but as its stdin (dup2 clears the flag on fd 0).
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        defer { close(descriptors[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptors[0], STDIN_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, ClipboardClearing.spawnInNewSession)
        let arguments = ["coffer", "clipboard-clear", "--after", String(seconds)] + (terminal.map { ["--terminal", $0] } ?? [])
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var process = pid_t()
        let status = posix_spawn(&process, "/proc/self/exe", &actions, &attributes, &argv, environ)
        close(descriptors[0])
        guard status == 0 else { throw CommandFailure("Cannot start the clipboard clearing helper (error \(status)).") }
        let line = Data((digest + "\n").utf8)
        _ = line.withUnsafeBytes { write(descriptors[1], $0.baseAddress, $0.count) }
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
