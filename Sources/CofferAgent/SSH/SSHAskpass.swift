import Foundation

/// Asks the user to confirm one use of a key through `$SSH_ASKPASS` (as OpenSSH's agent does for
/// `ssh-add -c`): the program gets the question as its argument and `SSH_ASKPASS_PROMPT=confirm`;
/// exit 0 allows. No program, one that fails to start, or no answer within `timeout`: refused.
enum SSHAskpass {
    static let timeout: TimeInterval = 60

    static func confirm(_ question: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let program = environment["SSH_ASKPASS"], !program.isEmpty else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = [question]
        process.environment = environment.merging(["SSH_ASKPASS_PROMPT": "confirm"]) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do {
            try process.run()
        } catch {
            return false
        }
        guard finished.wait(timeout: .now() + timeout) == .success else {
            process.terminate()
            return false
        }
        return process.terminationReason == .exit && process.terminationStatus == 0
    }
}
