import Foundation

/// Runs a command-line tool the tests compare with or drive (oathtool, tmux, the fuzz replayers).
public enum ToolProcess {
    /// Runs `executable` to its end; its exit status, and its stdout and stderr together.
    public static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

/// Runs keepassxc-cli, gpg, pass, gpgconf and gzip with stdin and an environment. Output goes through
/// files, not pipes: gpg starts a gpg-agent that keeps its descriptors for as long as it lives.
public enum ExternalTool {
    public struct Result {
        public var status: Int32
        public var output: Data
        public var errorText: String
        public var outputText: String { String(decoding: output, as: UTF8.self) }
    }

    public static func run(_ executable: String, _ arguments: [String], stdin: Data = Data(),
                    environment: [String: String] = [:]) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let paths = ["stdin", "stdout", "stderr"].map { scratch.appendingPathComponent($0) }
        try stdin.write(to: paths[0])
        for path in paths.dropFirst() { _ = FileManager.default.createFile(atPath: path.path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        process.standardInput = try FileHandle(forReadingFrom: paths[0])
        process.standardOutput = try FileHandle(forWritingTo: paths[1])
        process.standardError = try FileHandle(forWritingTo: paths[2])
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      output: try Data(contentsOf: paths[1]),
                      errorText: String(decoding: try Data(contentsOf: paths[2]), as: UTF8.self))
    }
}
