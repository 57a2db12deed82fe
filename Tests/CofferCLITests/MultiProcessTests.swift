import Foundation
import XCTest

/// Seeded histories of several processes on one vault (see `MultiProcessRun`). `make test` runs
/// two seeds; `make reliability` runs `COFFER_MULTIPROCESS_SEEDS` (`A-B` or a list: `1,5,9`) with
/// `COFFER_MULTIPROCESS_STEPS` steps each.
final class MultiProcessTests: XCTestCase {
    static func seeds(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [Int] {
        let text = environment["COFFER_MULTIPROCESS_SEEDS"] ?? "1-2"
        let bounds = text.split(separator: "-").compactMap { Int($0) }
        if bounds.count == 2, !text.contains(",") { return Array(bounds[0]...max(bounds[0], bounds[1])) }
        return text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    func testEveryAcknowledgedWriteSurvivesManyProcessesAndAKill() throws {
        let server = try TestKinto.url()
        let steps = Int(ProcessInfo.processInfo.environment["COFFER_MULTIPROCESS_STEPS"] ?? "") ?? 12
        var failedSeeds: [Int] = []
        for seed in Self.seeds() {
            let failuresBefore = testRun?.totalFailureCount ?? 0
            let run = try MultiProcessRun(seed: seed, server: server, steps: steps)
            defer { run.destroy() }
            let summary = try run.run()
            let failed = (testRun?.totalFailureCount ?? 0) > failuresBefore
            if failed { failedSeeds.append(seed) }
            print("multi-process: \(summary) → \(failed ? "FAILED" : "ok")")
        }
        print("multi-process runs: \(Self.seeds().count), failed seeds: \(failedSeeds.isEmpty ? "none" : "\(failedSeeds)")")
    }
}
