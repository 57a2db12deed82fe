import CofferCore
import Foundation
import XCTest

/// Every named crash point (`COFFER_CRASH_POINT`), with the real binary against the real Kinto:
/// a crash anywhere loses no acknowledged edit, leaves the crashed command's edit all there or
/// all absent, leaves sound SQLite files, no duplicate server record, nothing pending after
/// recovery, and two devices that converge. See `CrashScenario` for the starting state.
///
/// `COFFER_CRASH_POINTS=quick|all|name,name…` (default quick: a representative subset),
/// `COFFER_CRASH_SEEDS=N` (default 1), `COFFER_CRASH_JOBS=N` scenarios side by side (default 2).
/// `make reliability` runs all points with `CRASH_SEEDS` seeds (default 25).
final class CrashPointTests: XCTestCase {
    override class func tearDown() {
        CrashBinary.remove()
        super.tearDown()
    }

    func testTheHarnessCoversEveryCrashPoint() {
        XCTAssertEqual(CrashPoint.all.count, 71)
        XCTAssertEqual(Set(CrashPoint.all).count, CrashPoint.all.count, "a crash point is listed twice")
        for point in CrashPoint.all {
            XCTAssertNotNil(CrashCommand.reaching(point), "no command of the harness reaches \(point)")
        }
        XCTAssertEqual(CrashSelection.points(["COFFER_CRASH_POINTS": "all"]), CrashPoint.all)
        XCTAssertEqual(CrashSelection.points([:]), CrashSelection.quick)
        XCTAssertTrue(Set(CrashSelection.quick).isSubset(of: CrashPoint.all),
                      "quick names unknown points: \(Set(CrashSelection.quick).subtracting(CrashPoint.all))")
        // The quick subset still visits every command.
        XCTAssertEqual(Set(CrashSelection.quick.compactMap(CrashCommand.reaching)), Set(CrashCommand.allCases))
        XCTAssertEqual(CrashSelection.seeds(["COFFER_CRASH_SEEDS": "3"]), 1...3)
        XCTAssertEqual(CrashSelection.seeds(["COFFER_CRASH_SEEDS": "3-3"]), 3...3)
        XCTAssertEqual(CrashSelection.seeds([:]), 1...1)
    }

    func testCrashAtEachPointLosesNothing() throws {
        let server = try CrashServer.require()
        _ = try CrashBinary.path()
        let points = CrashSelection.points()
        let seeds = CrashSelection.seeds()
        let jobs = max(1, Int(ProcessInfo.processInfo.environment["COFFER_CRASH_JOBS"] ?? "") ?? 2)
        for point in points where !CrashPoint.all.contains(point) {
            XCTFail("COFFER_CRASH_POINTS names \(point), which is not a crash point")
        }
        let runs = points.filter(CrashPoint.all.contains).flatMap { point in seeds.map { (point, $0) } }
        let start = Date()
        let reports = Reports(count: runs.count)
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            while let index = next.take(below: runs.count) {
                let (point, seed) = runs[index]
                let report = Self.run(point: point, seed: seed, server: server)
                Self.say(report.line)
                reports.set(index, report)
            }
        }
        var failed = 0
        for report in reports.all where !report.problems.isEmpty {
            failed += 1
            XCTFail("crash point \(report.point) seed \(report.seed):\n  " + report.problems.joined(separator: "\n  ")
                + "\ncommands:\n" + report.transcript)
        }
        let seconds = Date().timeIntervalSince(start)
        Self.say("crash points: \(Set(runs.map(\.0)).count) points × \(seeds.count) seeds = \(runs.count) runs, "
            + "\(failed) failed, \(String(format: "%.1f", seconds)) s")
    }

    /// A line on stdout at once (print is buffered when stdout is a file or a pipe).
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Regression: the server took the crasher's push, the crash came before it recorded that,
    /// and the other device changed the same field on top. The recovering device merged against
    /// its stale base and its older value won; ItemMerge now recognises the descent.
    func testAnEditOnTopOfAPushWhoseAnswerWasLostInACrashIsKept() throws {
        let server = try CrashServer.require()
        let report = Self.run(point: "sync.push.items.after-send", seed: 3, server: server)
        Self.say(report.line)
        XCTAssertEqual(report.problems, [], "\n" + report.transcript)
    }

    /// Regression: `join` linked the new vault, then saved the sync account in a second
    /// transaction; a crash between left a vault that could never sync (after `join --code`, the
    /// account password was nowhere else on the device). The account now goes in with the file.
    func testAJoinThatDiesOnceItsVaultIsInPlaceKeepsTheAccount() throws {
        let server = try CrashServer.require()
        let report = Self.run(point: "vault.join.after-link", seed: 1, server: server)
        Self.say(report.line)
        XCTAssertEqual(report.problems, [], "\n" + report.transcript)
    }

    /// Regression: `device invite` created the rendezvous account and only then remembered it in
    /// `meta`; a crash between left an account on the server nothing would ever remove. It is now
    /// remembered first, and the next sync removes it.
    func testAnInviterThatDiesRightAfterOpeningTheRendezvousLeavesNothingOnTheServer() throws {
        let server = try CrashServer.require()
        let report = Self.run(point: "pair.host.after-open", seed: 2, server: server)
        Self.say(report.line)
        XCTAssertEqual(report.problems, [], "\n" + report.transcript)
    }

    private struct Report {
        var point: String
        var seed: Int
        var problems: [String]
        var outcome: String
        var seconds: Double
        var transcript: String

        var line: String {
            "crash \(point) seed \(seed): " + (problems.isEmpty ? "ok" : "FAILED (\(problems.count))")
                + (outcome.isEmpty ? "" : ", crashed command: \(outcome)") + String(format: " (%.1f s)", seconds)
        }
    }

    private static func run(point: String, seed: Int, server: URL) -> Report {
        let start = Date()
        var problems: [String] = []
        var outcome = ""
        var transcript = ""
        do {
            let scenario = try CrashScenario(point: point, seed: seed, server: server)
            defer { scenario.destroy() }
            do {
                try scenario.run()
            } catch {
                problems.append("\(error)")
            }
            problems = scenario.problems + problems
            outcome = scenario.outcome
            transcript = scenario.log.text
        } catch {
            problems.append("\(error)")
        }
        return Report(point: point, seed: seed, problems: problems, outcome: outcome,
                      seconds: Date().timeIntervalSince(start), transcript: transcript)
    }

    private final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [Report?]
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ report: Report) { lock.withLock { slots[index] = report } }
        var all: [Report] { lock.withLock { slots.compactMap { $0 } } }
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func take(below limit: Int) -> Int? {
            lock.withLock {
                guard value < limit else { return nil }
                defer { value += 1 }
                return value
            }
        }
    }
}
