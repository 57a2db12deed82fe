import Foundation
import XCTest

/// One seeded history of several processes on one vault (issue 10, architecture §8): the screen of
/// device A in tmux (created on its first-run page for odd seeds), `coffer add/edit/rm/sync`
/// on A beside it, some of them at once, a `coffer sync` loop on device B (joined to the same
/// account on the real Kinto) beside B's own commands, which go through B's agent (`coffer
/// unlock`, syncing on its own timer every second or two), and one `kill -9` of a writer, the
/// sync loop, the screen or the agent in the middle (a killed agent is started again).
///
/// Every write a process acknowledged (exit 0 with its id, or the screen's "Saved") is recorded;
/// afterwards both devices unlock and sync twice, and each must hold every acknowledged write
/// and no acknowledged removal, with identical items and an intact SQLite file.
final class MultiProcessRun {
    struct Expected: Equatable {
        var title: String
        var notes: String
    }

    let seed: Int
    let server: URL
    let steps: Int
    private var random: SeededRandom
    let a: TestVault
    let b: TestVault
    private let accountOptions: [String]
    private var screen: ScreenSession?
    private var retired: [ScreenSession] = []
    private let syncLoop = SyncLoop()
    /// How often B's agent syncs on its own (seconds), from the seed.
    private let agentSyncEvery: Int
    /// Writes acknowledged by B's agent (a part of `acknowledged`).
    private(set) var throughAgent = 0
    /// Every write acknowledged: by a command, by the agent or on the screen.
    var acknowledgedWrites: Int { acknowledged.count + screenTitles.count }
    /// Whether the `kill -9` hit B's agent.
    private(set) var killedAgent = false
    /// Searches on A checked against the acknowledged items.
    private(set) var searches = 0

    /// Acknowledged items by id, with the device that writes them (each item has one writer device,
    /// so its final value is known whatever order the syncs run in).
    private var acknowledged: [String: (device: String, expected: Expected)] = [:]
    private var screenTitles: Set<String> = []
    private var removed: Set<String> = []
    /// Titles of writes killed before they answered: present or not, both are right.
    private var unacknowledged: Set<String> = []
    /// What the `kill -9` hit.
    private var killed = "nothing killed"

    init(seed: Int, server: URL, steps: Int) throws {
        self.seed = seed
        self.server = server
        self.steps = steps
        random = SeededRandom(point: "multi-process", seed: seed)
        agentSyncEvery = 1 + random.below(2)
        a = try TestVault()
        b = try TestVault(passphrase: a.passphrase)
        let user = "mp-\(seed)-\(UUID().uuidString.prefix(8).lowercased())"
        let passwordFile = try a.writeWorkFile("account-password", "pw-\(UUID().uuidString)\n")
        accountOptions = ["--server", server.absoluteString, "--user", user, "--password-file", passwordFile]
    }

    /// Stops every process of the run and removes its files; `keepFiles` leaves both vaults (and
    /// their directories) to be examined after a failure.
    func destroy(keepFiles: Bool = false) {
        syncLoop.stop()
        for pid in AgentProbe.processes(b) { kill(pid, SIGKILL) }
        screen = nil
        retired.removeAll()
        if keepFiles {
            print("multi-process: seed \(seed) kept A at \(a.root.path), B at \(b.root.path)")
            return
        }
        a.destroy()
        b.destroy()
    }

    /// Runs the history and checks it; returns a one-line summary. Failures are XCTFails.
    func run() throws -> String {
        try setUp()
        syncLoop.start(vault: b)
        let killAt = random.below(steps)
        for step in 0..<steps {
            if step == killAt { try killOne(step) } else { try act(step) }
            // Outside the seeded choices, so a seed replays the same history as before.
            if step % 5 == 4 { try searchOnA(step) }
        }
        syncLoop.stop()
        try finish()
        let start = seed % 2 == 1 ? "created on the first-run screen" : "created by init"
        let processes = "A \(start): screen, coffer add/edit/rm/sync beside it (some at once); "
            + "B: coffer add/edit through its agent (syncing every \(agentSyncEvery) s) + a sync loop"
        return "seed \(seed): \(steps) steps, \(acknowledged.count + screenTitles.count) writes acknowledged "
            + "(\(throughAgent) by the agent), \(removed.count) removals, \(searches) searches checked, "
            + "\(syncLoop.runs) B syncs; \(processes); \(killed)"
    }

    // MARK: Set-up

    private func setUp() throws {
        if seed % 2 == 1 {
            let screen = try ScreenSession(vault: a.path, home: a.root)
            try screen.createVault(passphrase: a.passphrase)
            self.screen = screen
            try ok(a, ["account", "signup"] + accountOptions, unlock: false)
        } else {
            try ok(a, ["init"] + TestVault.fastKDF)
            try ok(a, ["account", "signup"] + accountOptions, unlock: false)
            let screen = try ScreenSession(vault: a.path, home: a.root)
            try screen.unlock(passphrase: a.passphrase)
            self.screen = screen
        }
        try ok(a, ["sync"], unlock: false)
        try ok(b, ["join"] + accountOptions)
        try startAgent()
    }

    /// B's agent: B's commands give no passphrase, so every write on B goes through it.
    private func startAgent() throws {
        try ok(b, ["unlock", "--sync-every", String(agentSyncEvery)])
    }

    // MARK: Steps

    private func act(_ step: Int) throws {
        switch random.below(7) {
        case 0: try add(on: a, "a", step)
        case 1: try add(on: b, "b", step)
        case 2: try editNotes(step)
        case 3: try addOnScreen(step)
        case 4: try addTogether(step)
        case 5: try removeOne()
        default:
            // Another process syncing A beside the screen's own scheduled syncs.
            let result = try a.run(["sync"], unlock: false)
            // Conflicts wait for an unlock (12) and the keystore may be changing: not failures here.
            if ![0, 12].contains(result.status) { XCTFail("seed \(seed): sync of A: \(result.summary)") }
        }
    }

    private func add(on device: TestVault, _ name: String, _ step: Int) throws {
        let title = "\(name)-\(seed)-\(step)-\(random.word())"
        let result = try device.run(["add", "--title", title, "--notes", "n0"], unlock: device !== b)
        guard result.status == 0 else { return XCTFail("seed \(seed): add on \(name) failed: \(result.summary)") }
        acknowledged[result.line] = (name, Expected(title: title, notes: "n0"))
        if device === b { throughAgent += 1 }
    }

    private func addTogether(_ step: Int) throws {
        let titles = (0..<2).map { "a-\(seed)-\(step)-\($0)-\(random.word())" }
        let results = try a.runAll(titles.map { ["add", "--title", $0, "--notes", "n0"] })
        for (title, result) in zip(titles, results) {
            guard result.status == 0 else { return XCTFail("a concurrent add failed: \(result.summary)") }
            acknowledged[result.line] = ("a", Expected(title: title, notes: "n0"))
        }
    }

    private func editNotes(_ step: Int) throws {
        let live = acknowledged.keys.filter { !removed.contains($0) }.sorted()
        guard !live.isEmpty, let id = random.shuffled(live).first, let entry = acknowledged[id] else { return }
        let notes = "n-\(step)-\(random.word())"
        let result = try (entry.device == "a" ? a : b).run(["edit", id, "--notes", notes], unlock: entry.device == "a")
        // Each item's only writer is the device that added it, so it is always there to edit.
        guard result.status == 0 else { return XCTFail("seed \(seed): edit on \(entry.device) failed: \(result.summary)") }
        acknowledged[id]?.expected.notes = notes
        if entry.device == "b" { throughAgent += 1 }
    }

    private func addOnScreen(_ step: Int) throws {
        guard let screen else { return }
        let title = "s-\(seed)-\(step)-\(random.word())"
        if try screen.addItem(title: title) { screenTitles.insert(title) }
    }

    private func removeOne() throws {
        let ours = acknowledged.filter { $0.value.device == "a" && !removed.contains($0.key) }.keys.sorted()
        guard let id = random.shuffled(ours).first else { return }
        let result = try a.run(["rm", "--purge", id])
        guard result.status == 0 else { return XCTFail("rm failed: \(result.summary)") }
        removed.insert(id)
    }

    /// `coffer search` on A beside the screen, the other commands and the syncs: it reads and
    /// writes A's sealed search index while they write, and finds exactly the items A acknowledged
    /// adding as "a-SEED-…" and has not removed (no other title holds it: B's are "b-…", the
    /// screen's "s-…", a killed add's "killed-…").
    private func searchOnA(_ step: Int) throws {
        let result = try a.run(["search", "a-\(seed)-", "--json"])
        guard result.status == 0 else { return XCTFail("seed \(seed) step \(step): search on A: \(result.summary)") }
        var found: [String: String] = [:]
        for item in try result.jsonArray() {
            if let id = item["id"] as? String { found[id] = item["title"] as? String ?? "?" }
        }
        let expected = Set(acknowledged.filter {
            $0.value.device == "a" && $0.value.expected.title.hasPrefix("a-\(seed)-") && !removed.contains($0.key)
        }.keys)
        let missing = expected.subtracting(found.keys).map { acknowledged[$0]?.expected.title ?? $0 }
        XCTAssertEqual(missing, [], "seed \(seed) step \(step): search on A misses acknowledged items")
        let extra = Set(found.keys).subtracting(expected).map { "\(found[$0] ?? "?")\(removed.contains($0) ? " (removed)" : "")" }
        XCTAssertEqual(extra, [], "seed \(seed) step \(step): search on A finds items it should not")
        searches += 1
    }

    /// `kill -9` of one process in the middle of its work.
    private func killOne(_ step: Int) throws {
        switch random.below(4) {
        case 0:
            let title = "killed-\(seed)-\(step)"
            let writer = try BackgroundCoffer(a, ["add", "--title", title, "--notes", "n0"])
            usleep(UInt32(50_000 + random.below(400_000)))
            let answer = writer.kill9()
            if let id = answer {
                acknowledged[id] = ("a", Expected(title: title, notes: "n0"))
            } else {
                unacknowledged.insert(title)
            }
            killed = "kill -9 of coffer add (\(answer == nil ? "killed" : "had answered"))"
        case 1:
            let hit = syncLoop.killCurrent(after: 0.05 + Double(random.below(300)) / 1000)
            killed = "kill -9 of the sync loop on B (\(hit ? "mid-sync" : "between syncs"))"
        case 2:
            try killAgent(step)
        default:
            guard let screen, let pid = screen.cofferPID else { return try act(step) }
            kill(pid, SIGKILL)
            // Gone once its shell reaped it (the pane's text may wrap the shell's EXIT line).
            let deadline = Date().addingTimeInterval(10)
            while kill(pid, 0) == 0, Date() < deadline { usleep(20_000) }
            XCTAssertNotEqual(kill(pid, 0), 0, "seed \(seed): the screen survived kill -9")
            retired.append(screen)
            let again = try ScreenSession(vault: a.path, home: a.root)
            try again.unlock(passphrase: a.passphrase)
            self.screen = again
            killed = "kill -9 of the screen, started again"
        }
    }

    /// `kill -9` of B's agent while a `coffer add` waits on it: the add is acknowledged only if
    /// it printed its id; then the agent is started again, as a person would.
    private func killAgent(_ step: Int) throws {
        guard let pid = AgentProbe.processes(b).first else { return XCTFail("seed \(seed): B's agent is not running") }
        let title = "agent-killed-\(seed)-\(step)"
        let writer = try BackgroundCoffer(b, ["add", "--title", title, "--notes", "n0"], unlock: false)
        // The add starts, connects and is answered in some tens of milliseconds: kill within them.
        usleep(UInt32(random.below(60_000)))
        kill(pid, SIGKILL)
        let answer = writer.wait()
        if let id = answer {
            acknowledged[id] = ("b", Expected(title: title, notes: "n0"))
            throughAgent += 1
        } else {
            unacknowledged.insert(title)
        }
        killed = "kill -9 of B's agent (its add \(answer == nil ? "unanswered" : "had answered")), agent started again"
        killedAgent = true
        try startAgent()
    }

    // MARK: Checking

    private func finish() throws {
        if let screen {
            for title in screenTitles { screen.expect(title) }  // still shown after everything
            try screen.press("q")
            screen.expect("EXIT=0")
        }
        try ok(b, ["lock"])
        for device in [a, b, a, b] { try ok(device, ["sync", "--unlock"]) }
        let itemsA = try exported(a, "A"), itemsB = try exported(b, "B")
        for device in [a, b] { XCTAssertEqual(try integrityCheck(device.path), "ok", "seed \(seed): integrity of \(device.path)") }
        for (id, entry) in acknowledged where !removed.contains(id) {
            for (name, items) in [("A", itemsA), ("B", itemsB)] {
                XCTAssertEqual(items[id], entry.expected, "seed \(seed): acknowledged write \(id) on \(name)")
            }
        }
        for id in removed {
            XCTAssertNil(itemsA[id], "seed \(seed): removed \(id) is back on A")
            XCTAssertNil(itemsB[id], "seed \(seed): removed \(id) is back on B")
        }
        for title in screenTitles {
            XCTAssertTrue(itemsA.values.contains { $0.title == title }, "seed \(seed): the screen's \(title) is missing on A")
        }
        XCTAssertEqual(itemsA, itemsB, "seed \(seed): the devices differ after syncing twice")
        let known = Set(acknowledged.values.map(\.expected.title)).union(screenTitles).union(unacknowledged)
        for item in itemsA.values { XCTAssertTrue(known.contains(item.title), "seed \(seed): an item nobody wrote: \(item.title)") }
    }

    /// Every item of a device by id (`export` to stdout: one process, every field). An item the
    /// device cannot read fails the run, with what the device says about it, and whether two more
    /// rounds of syncing change that (a slow convergence, or a key lost for good).
    private func exported(_ device: TestVault, _ name: String) throws -> [String: Expected] {
        var result = try device.run(["export", "--format", "json", "-"])
        if result.status != 0 {
            let listing = try device.run(["list", "--json"])
            let status = try device.run(["status", "--json"], unlock: false)
            for other in [a, b, a, b] { _ = try other.run(["sync", "--unlock"]) }
            result = try device.run(["export", "--format", "json", "-"])
            XCTFail("seed \(seed): \(name) cannot export every item after syncing twice; list: \(listing.err) "
                    + "\(listing.out.prefix(3000)); status: \(status.out); after two more rounds: "
                    + (result.status == 0 ? "readable" : "still not: \(result.err)"))
            guard result.status == 0 else { return [:] }
        }
        var byID: [String: Expected] = [:]
        for item in try result.jsonArray() {
            guard let id = item["id"] as? String else { continue }
            byID[id] = Expected(title: item["title"] as? String ?? "", notes: item["notes"] as? String ?? "")
        }
        return byID
    }

    @discardableResult
    private func ok(_ device: TestVault, _ arguments: [String], unlock: Bool = true) throws -> CofferResult {
        let result = try device.run(arguments, unlock: unlock)
        if result.status != 0 { XCTFail("seed \(seed): \(result.summary)") }
        return result
    }
}

/// `coffer sync` on one vault, again and again on a thread of its own, until stopped; the
/// running process can be killed with SIGKILL.
final class SyncLoop: @unchecked Sendable {
    private let lock = NSLock()
    private var isRunning = false
    private var current: Process?
    private var finished = DispatchSemaphore(value: 0)
    private(set) var runs = 0

    func start(vault: TestVault) {
        lock.withLock { isRunning = true }
        Thread.detachNewThread { [self] in
            while lock.withLock({ isRunning }) {
                guard let process = try? BackgroundCoffer.process(vault, ["sync"], unlock: false) else { break }
                lock.withLock { current = process }
                try? process.run()
                process.waitUntilExit()
                lock.withLock {
                    current = nil
                    runs += 1
                }
                usleep(200_000)
            }
            finished.signal()
        }
    }

    /// Kills the sync running after `delay` seconds, if one is; whether one was.
    func killCurrent(after delay: TimeInterval) -> Bool {
        Thread.sleep(forTimeInterval: delay)
        return lock.withLock {
            guard let current, current.isRunning else { return false }
            kill(current.processIdentifier, SIGKILL)
            return true
        }
    }

    func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { isRunning = false }
            return isRunning
        }
        if wasRunning { finished.wait() }
    }
}

/// A `coffer` command started in the background, to be killed while it works.
struct BackgroundCoffer {
    let process: Process
    let output: Pipe

    /// `unlock: false` gives no passphrase: the command goes through the vault's agent.
    init(_ vault: TestVault, _ arguments: [String], unlock: Bool = true) throws {
        process = try Self.process(vault, arguments, unlock: unlock)
        output = Pipe()
        process.standardOutput = output
        try process.run()
    }

    static func process(_ vault: TestVault, _ arguments: [String], unlock: Bool) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CofferBinary.require())
        process.arguments = ["--vault", vault.path] + (unlock ? ["--passphrase-file", vault.passphraseFile] : []) + arguments
        // The agent's socket directory, as `CofferProcess` sets it: these commands find B's agent.
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": vault.root.path, "XDG_RUNTIME_DIR": vault.root.path,
                               "LANG": "C.UTF-8", "TERM": "dumb"]
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        return process
    }

    /// SIGKILL now; the id it printed if it had already answered (exit 0), else nil.
    func kill9() -> String? {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        return wait()
    }

    /// Waits for the exit; the id it printed if it succeeded, else nil.
    func wait() -> String? {
        process.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationReason == .exit, process.terminationStatus == 0, !printed.isEmpty else { return nil }
        return printed
    }
}
