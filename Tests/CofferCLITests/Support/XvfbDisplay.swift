import Foundation
import XCTest

/// A private X server (Debian `xvfb`) for clipboard tests, read and written with the real `xclip`.
/// Missing tools make the test fail, never skip.
final class XvfbDisplay {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let display: String
    private let server: Process

    init() throws {
        for tool in ["/usr/bin/Xvfb", "/usr/bin/xclip"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw Failure(description: "\(tool) is missing (Debian packages xvfb and xclip; `make deps` installs them)")
        }
        // A random display number; one in use makes Xvfb exit at once, and the next is tried.
        for _ in 0..<10 {
            let number = Int.random(in: 200..<30_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            process.arguments = [":\(number)", "-nolisten", "tcp", "-screen", "0", "320x200x24"]
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            let socket = "/tmp/.X11-unix/X\(number)"
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, !FileManager.default.fileExists(atPath: socket), Date() < deadline {
                usleep(20_000)
            }
            if process.isRunning, FileManager.default.fileExists(atPath: socket) {
                display = ":\(number)"
                server = process
                return
            }
            if process.isRunning { process.terminate() }
        }
        throw Failure(description: "Xvfb did not start on any of 10 display numbers")
    }

    deinit { stop() }

    func stop() {
        guard server.isRunning else { return }
        server.terminate()
        server.waitUntilExit()
    }

    /// The environment a command needs to reach this display's clipboard.
    var environment: [String: String] { ["DISPLAY": display] }

    /// The CLIPBOARD selection as `xclip -o` prints it ("" when nobody owns it).
    func clipboard() throws -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xclip-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: scratch.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = try xclip(["-selection", "clipboard", "-o"], input: nil, output: try FileHandle(forWritingTo: scratch))
        process.waitUntilExit()
        return String(decoding: try Data(contentsOf: scratch), as: UTF8.self)
    }

    /// Puts `text` on the CLIPBOARD selection, as another program would. xclip forks a daemon that
    /// serves the selection (and keeps Foundation's `Process` from seeing its exit): wait for the
    /// text to be readable instead.
    func setClipboard(_ text: String) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xclip-\(UUID().uuidString)")
        try Data(text.utf8).write(to: scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try xclip(["-selection", "clipboard", "-i", scratch.path], input: FileHandle(forReadingAtPath: "/dev/null"),
                      output: FileHandle(forWritingAtPath: "/dev/null"))
        let deadline = Date().addingTimeInterval(5)
        while try clipboard() != text {
            guard Date() < deadline else { throw Failure(description: "xclip did not take the text within 5 s") }
            usleep(20_000)
        }
    }

    private func xclip(_ arguments: [String], input: FileHandle?, output: FileHandle?) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xclip")
        process.arguments = arguments
        process.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin"]
        process.standardInput = input ?? FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        return process
    }
}
