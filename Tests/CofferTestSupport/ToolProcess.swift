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
