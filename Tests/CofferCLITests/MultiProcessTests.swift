import CofferTestSupport
import Foundation
import XCTest

/// Seeded histories of several processes on one vault (see `MultiProcessRun`): the screen in tmux,
/// CLI writers, an agent serving B's commands and syncing on its timer, a sync loop, and a kill -9
/// of one of them. `make test` runs two seeds; `make reliability` runs `COFFER_MULTIPROCESS_SEEDS`
/// (`A-B` or a list: `1,5,9`; default there 1-200) with `COFFER_MULTIPROCESS_STEPS` steps each.
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
        var writes = 0, byAgent = 0, agentKills = 0, searches = 0
        for seed in Self.seeds() {
            let failuresBefore = testRun?.totalFailureCount ?? 0
            let run = try MultiProcessRun(seed: seed, server: server, steps: steps)
            // COFFER_MULTIPROCESS_KEEP_FAILED=1 leaves a failed seed's vaults for a post-mortem.
            let keepFailed = ProcessInfo.processInfo.environment["COFFER_MULTIPROCESS_KEEP_FAILED"] == "1"
            defer { run.destroy(keepFiles: keepFailed && (testRun?.totalFailureCount ?? 0) > failuresBefore) }
            let summary = try run.run()
            writes += run.acknowledgedWrites
            byAgent += run.throughAgent
            agentKills += run.killedAgent ? 1 : 0
            searches += run.searches
            let failed = (testRun?.totalFailureCount ?? 0) > failuresBefore
            if failed { failedSeeds.append(seed) }
            print("multi-process: \(summary) → \(failed ? "FAILED" : "ok")")
        }
        // A lost acknowledged write fails its seed (MultiProcessRun.finish): "failed seeds: none" is 0 lost.
        print("multi-process runs: \(Self.seeds().count), \(writes) acknowledged writes (\(byAgent) through the agent), "
            + "\(agentKills) agent kills, \(searches) searches checked, failed seeds: \(failedSeeds.isEmpty ? "none" : "\(failedSeeds)")")
    }
}
