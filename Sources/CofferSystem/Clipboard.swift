import CofferCore
import Foundation

/// The system clipboard through a helper command (`wl-copy`, `xclip` or `xsel`), alongside the
/// OSC 52 sequence the runtime always sends to the terminal (it works over SSH).
///
/// `read` lets the runtime clear the clipboard only if it still holds our value; nil means it
/// cannot tell (no helper), and then only OSC 52 clears it.
public struct ClipboardService: Sendable {
    public var copy: @Sendable (String) async -> Void
    public var read: @Sendable () async -> String?
    public var clear: @Sendable () async -> Void
    /// Whether a helper command backs this service (else only OSC 52 reaches a clipboard).
    public var hasHelper = false

    public init(copy: @escaping @Sendable (String) async -> Void, read: @escaping @Sendable () async -> String?,
                clear: @escaping @Sendable () async -> Void) {
        self.copy = copy
        self.read = read
        self.clear = clear
    }

    /// OSC 52 only.
    public static let terminalOnly = ClipboardService(copy: { _ in }, read: { nil }, clear: {})

    /// The first helper that fits the session: `wl-copy` under Wayland, `xclip` or `xsel` under X11.
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment) -> ClipboardService {
        guard let helper = ClipboardHelper.find(environment: environment) else { return .terminalOnly }
        var service = ClipboardService(copy: { text in helper.run(helper.copyArguments, input: text) },
                                       read: { helper.output(helper.readArguments) },
                                       clear: { helper.run(helper.clearArguments, input: helper.clearsWithInput ? "" : nil) })
        service.hasHelper = true
        return service
    }
}

/// OSC 52: "set the clipboard" as a terminal control sequence.
public enum OSC52 {
    public static func copy(_ text: String) -> String {
        "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}"
    }

    /// An empty payload empties the clipboard.
    public static let clear = "\u{1B}]52;c;\u{07}"
}

/// A clipboard command and how to drive it.
struct ClipboardHelper: Sendable {
    var executable: String
    var copyArguments: [String]
    var readArguments: [String]
    var clearArguments: [String]
    /// `xclip` has no clear: copying an empty text does it.
    var clearsWithInput: Bool

    static func find(environment: [String: String]) -> ClipboardHelper? {
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func locate(_ name: String) -> String? {
            path.map { ($0 as NSString).appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        if environment["WAYLAND_DISPLAY"] != nil, let copy = locate("wl-copy"), let paste = locate("wl-paste") {
            return ClipboardHelper(executable: copy, copyArguments: [], readArguments: ["@" + paste, "--no-newline"],
                                   clearArguments: ["--clear"], clearsWithInput: false)
        }
        guard environment["DISPLAY"] != nil else { return nil }
        if let xclip = locate("xclip") {
            return ClipboardHelper(executable: xclip, copyArguments: ["-selection", "clipboard"],
                                   readArguments: ["-selection", "clipboard", "-o"],
                                   clearArguments: ["-selection", "clipboard"], clearsWithInput: true)
        }
        if let xsel = locate("xsel") {
            return ClipboardHelper(executable: xsel, copyArguments: ["--clipboard", "--input"],
                                   readArguments: ["--clipboard", "--output"], clearArguments: ["--clipboard", "--clear"],
                                   clearsWithInput: false)
        }
        return nil
    }

    /// How long a helper may take: a hung X server must not hang the screen (or its exit).
    static let timeout: TimeInterval = 2

    /// Runs the helper with `input` on its stdin and waits for it; output is discarded (xclip
    /// forks to serve the selection, and the fork keeps its stdout). A helper that cannot start
    /// leaves OSC 52 to do the job.
    func run(_ arguments: [String], input: String?) {
        let (executable, arguments) = resolve(arguments)
        guard let child = ChildProcess.start(executable, arguments: arguments, input: input.map { Data($0.utf8) }) else { return }
        ChildProcess.wait(for: child, upTo: ClipboardHelper.timeout)
    }

    /// The helper's output, nil when it fails or takes too long. Through a pipe: what it prints is
    /// the clipboard, which may be the password just copied, and must not touch the disk.
    func output(_ arguments: [String]) -> String? {
        let (executable, arguments) = resolve(arguments)
        guard var bytes = ChildProcess.output(of: executable, arguments: arguments, upTo: ClipboardHelper.timeout) else {
            return nil
        }
        defer { wipe(&bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `@path` as the first argument names another executable (wl-paste reads, wl-copy writes).
    private func resolve(_ arguments: [String]) -> (String, [String]) {
        if let first = arguments.first, first.hasPrefix("@") { return (String(first.dropFirst()), Array(arguments.dropFirst())) }
        return (executable, arguments)
    }
}
