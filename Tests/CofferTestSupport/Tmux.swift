import Foundation

/// A tmux server of our own (its own socket) running one command in a fixed-size window: keys
/// in with `send-keys`, the screen out with `capture-pane`. Shared by the screen's end-to-end tests
/// and the CLI tests that run the screen beside commands.
public final class Tmux {
    public let socket = "coffer-e2e-\(UUID().uuidString.prefix(8))"
    public let session = "coffer"

    public static var isInstalled: Bool { executable != nil }

    public static let executable: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts `command` (a shell line) in a `width`×`height` window.
    public init(command: String, width: Int = 100, height: Int = 30) throws {
        // The server this starts keeps the descriptors Foundation uses to see the client exit, so
        // waiting for the client would wait for the server: start it, then poll until it answers.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tmux.executable ?? "/usr/bin/tmux")
        process.arguments = ["-L", socket, "new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)",
                             command]
        let null = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = null
        process.standardError = null
        try process.run()
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, !(try run(["has-session", "-t", session])).isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
        }
        // Let OSC 52 from the program reach tmux's paste buffer, as a terminal would.
        try run(["set-option", "-s", "set-clipboard", "on"])
    }

    deinit { _ = try? run(["kill-server"]) }

    @discardableResult
    public func run(_ arguments: [String]) throws -> String {
        try ToolProcess.run(Tmux.executable ?? "/usr/bin/tmux", ["-L", socket] + arguments).output
    }

    /// Sends keys as tmux names them: literal text, or `Enter`, `Escape`, `C-c`, `Tab`…
    public func send(_ keys: String..., literally: Bool = false) throws {
        try run(["send-keys", "-t", session] + (literally ? ["-l"] : []) + keys)
    }

    public func type(_ text: String) throws { try run(["send-keys", "-t", session, "-l", text]) }

    public var screen: String { capture(["-p"]) }

    /// The screen with its SGR escape sequences (colours and attributes).
    public var styledScreen: String { capture(["-p", "-e"]) }

    /// A capture, retried when it comes back empty (a busy machine sometimes loses one).
    private func capture(_ options: [String]) -> String {
        for _ in 0..<5 {
            let text = (try? run(["capture-pane", "-t", session] + options)) ?? ""
            if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return text }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return ""
    }

    public var pasteBuffer: String { (try? run(["show-buffer"])) ?? "" }

    public func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    /// The pid of the program running in the pane (the shell's child).
    public var programPID: Int32? {
        guard let shell = Int32((try? run(["list-panes", "-t", session, "-F", "#{pane_pid}"]))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else { return nil }
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// Waits until the screen contains `text`; returns the screen either way.
    @discardableResult
    public func wait(for text: String, timeout: TimeInterval = 10) -> (found: Bool, screen: String) {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = screen
            if last.contains(text) { return (true, last) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return (false, last)
    }
}
