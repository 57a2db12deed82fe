import Foundation
import XCTest

/// What tests learn of a vault's agent from outside: its pid (`status --json`) and whether it runs.
enum AgentProbe {
    /// The agent's pid from `status --json`; nil when none holds the vault.
    static func pid(_ vault: TestVault) throws -> pid_t? {
        let agent = try vault.status()["agent"]
        guard let object = agent as? [String: Any] else { return nil }
        return (object["pid"] as? Int).map(pid_t.init)
    }

    /// Alive and not a zombie.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(close, offsetBy: 2)...].hasPrefix("Z")
    }

    /// The pids of agents running for `vault` (their command lines name it).
    static func processes(_ vault: TestVault) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap(pid_t.init).filter { pid in
            guard isRunning(pid), let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.contains("agent") && arguments.contains { $0.hasSuffix(vault.path) }
        }
    }

    static func waitUntilGone(_ pid: pid_t, seconds: Double = 10, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning(pid) && Date() < deadline { usleep(20_000) }
        XCTAssertFalse(isRunning(pid), "agent \(pid) still runs", file: file, line: line)
    }
}
