import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// architecture §4's invariant on random histories: three devices on one account of the real Kinto add,
/// edit, remove, lock, unlock and sync at random; then every device unlocks and syncs twice with
/// no new edits (a, b, c, a, b, c). Afterwards all devices must hold identical items, and no edit
/// may be lost except where the merge rules say which side wins.
///
/// `COFFER_CONVERGENCE_HISTORIES` (default 50) histories run, `COFFER_CONVERGENCE_JOBS`
/// (default 2) at a time, with seeds from `COFFER_CONVERGENCE_SEED` (default fixed) upwards; a
/// failing history names its seed and the environment that replays it alone. The last line,
/// `histories: N (seeds a…b), failures F, T s`, is the summary `make reliability` shows (1,000).
///
/// How "no edit lost" is judged: every edit also adds a tag naming it (`ev-N`), and no operation
/// ever removes those. Tags merge as sets, so for these they only grow, and an item's `ev-` tags
/// say which edits its state has seen: the causal history the invariant needs, observed in the
/// real system rather than modelled next to it. Then, for every item ever added:
/// - it exists at the end exactly when some edit of it (its add included) was not seen by any
///   device that removed it (an update beats a concurrent remove; a remove that saw every edit wins);
/// - every such edit's tag is in the final item (its change was merged, not dropped);
/// - each final title, username, password and notes is a value some device wrote (or the
///   initial one); if the item was never removed, it is one no later write of that field had seen
///   (the devices' concurrent writes, of which the merge keeps one), and its origins and other
///   tags are exactly those added and never removed.
final class SyncConvergenceTests: XCTestCase {
    func testRandomHistoriesOnThreeDevicesConverge() async throws {
        let server = try TestServer.require()
        let environment = ProcessInfo.processInfo.environment
        let count = environment["COFFER_CONVERGENCE_HISTORIES"].flatMap { Int($0) } ?? 50
        let jobs = max(1, environment["COFFER_CONVERGENCE_JOBS"].flatMap { Int($0) } ?? 2)
        let firstSeed = environment["COFFER_CONVERGENCE_SEED"].flatMap { UInt64($0) } ?? 20_250_611
        let lastSeed = firstSeed &+ UInt64(max(count - 1, 0))
        let start = Date()
        // Histories are independent (own account, own vaults), so `jobs` of them run side by side:
        // each mostly waits for Kinto, and the machine has more than one core.
        var outcomes: [RandomHistory.Outcome] = []
        await withTaskGroup(of: RandomHistory.Outcome.self) { group in
            var next = 0
            func launch() {
                let seed = firstSeed &+ UInt64(next)
                next += 1
                group.addTask { await RandomHistory.run(seed: seed, server: server) }
            }
            for _ in 0..<min(jobs, count) { launch() }
            while let outcome = await group.next() {
                outcomes.append(outcome)
                if next < count { launch() }
            }
        }
        var totals = RandomHistory.Statistics()
        let failed = outcomes.filter { !$0.failures.isEmpty }.sorted { $0.seed < $1.seed }
        for outcome in outcomes { totals.add(outcome.statistics) }
        for outcome in failed {
            XCTFail("""
                the history with seed \(outcome.seed) failed; replay it alone with \
                COFFER_CONVERGENCE_SEED=\(outcome.seed) COFFER_CONVERGENCE_HISTORIES=1:
                \(outcome.failures.joined(separator: "\n"))
                Its operations:
                \(outcome.log.joined(separator: "\n"))
                """)
        }
        let seconds = String(format: "%.1f", Date().timeIntervalSince(start))
        print("SyncConvergenceTests: \(totals), \(jobs) at a time" + (failed.isEmpty ? "" : "; failed seeds \(failed.map(\.seed))"))
        // The summary line `make reliability` greps for.
        print("histories: \(count) (seeds \(firstSeed)…\(lastSeed)), failures \(failed.count), \(seconds) s")
    }
}

/// One random history on three fresh devices and a fresh account.
final class RandomHistory: @unchecked Sendable {
    enum Operation: String { case add, edit, remove, lock, unlock, sync }
    enum Field: String, CaseIterable { case title, username, password, notes, tags, origins }
    enum TextField: String, CaseIterable { case title, username, password, notes }

    /// A value written to a scalar field, with the edits its writer had seen.
    struct Write {
        var marker: String
        var known: Set<String>
        var value: String
    }

    /// What the test knows of one item: every write, every removal.
    struct Tracked {
        var writes: [TextField: [Write]] = [:]
        /// Every edit (the add included): its tag and the tags its device had seen.
        var events: [(marker: String, known: Set<String>)] = []
        /// For each removal, the edits the removing device had seen.
        var removals: [Set<String>] = []
        var addedOrigins = Set<String>()
        var removedOrigins = Set<String>()
        var addedTags = Set<String>()
        var removedTags = Set<String>()
        /// The last value each device wrote to each field (for the failure log).
        var lastWritten: [String: [String: String]] = [:]
    }

    /// What a history exercised, for the summary line.
    struct Statistics: CustomStringConvertible {
        var operations = 0
        var edits = 0
        var removals = 0
        var syncs = 0
        var merges = 0
        var lockedSyncsWithConflicts = 0

        mutating func add(_ other: Statistics) {
            operations += other.operations
            edits += other.edits
            removals += other.removals
            syncs += other.syncs
            merges += other.merges
            lockedSyncsWithConflicts += other.lockedSyncsWithConflicts
        }

        var description: String {
            "\(operations) operations (\(edits) edits, \(removals) removals, \(syncs) syncs), \(merges) merges, "
                + "\(lockedSyncsWithConflicts) locked syncs ending in SYNC_LOCKED"
        }
    }

    /// What one history left: its seed, what went wrong (empty: it passed), what it did.
    struct Outcome: Sendable {
        var seed: UInt64
        var failures: [String]
        var log: [String]
        var statistics: Statistics
    }

    /// Runs the history `seed` in a directory of its own, removed afterwards, with Argon2id
    /// remembered per input (`Argon2idMemo`: the devices share one passphrase and salt).
    static func run(seed: UInt64, server: TestServer) async -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-history-\(seed)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let history = RandomHistory(seed: seed, server: server, directory: directory)
        let memo = Argon2idMemo()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try await PassphraseKeys.$stretching.withValue({ try memo.stretch($0, $1, $2, $3) }) {
                try await history.run()
            }
        } catch {
            history.fail("threw \(error)")
        }
        return Outcome(seed: seed, failures: history.failures, log: history.log, statistics: history.statistics)
    }

    let seed: UInt64
    let server: TestServer
    let directory: URL
    private var random: SeededGenerator
    private var devices: [Device] = []
    private var locked: [Bool] = []
    private var counter = 0
    private var order: [String] = []
    private var tracked: [String: Tracked] = [:]
    private(set) var log: [String] = []
    private(set) var statistics = Statistics()
    /// What went wrong, collected rather than reported at once: histories run side by side, and
    /// the test names the seed of each failed one.
    private(set) var failures: [String] = []

    func fail(_ message: String) { failures.append(message) }

    init(seed: UInt64, server: TestServer, directory: URL) {
        self.seed = seed
        self.server = server
        self.directory = directory
        self.random = SeededGenerator(seed: seed)
    }

    func run() async throws {
        let credentials = try await server.makeAccount()
        // Running clocks, each up to five minutes off, as real devices have: every sync corrects
        // them by the server's `Date`, so they agree to about a second (architecture §10).
        // Stopped clocks moved 1–30 s per step ran minutes apart even corrected (the server's
        // clock does not jump with them), and an edit re-created over a removal then counted as
        // older than the removed version: a false "rollback" no real clock gives.
        func clock() -> TestClock { .live(offset: Double(Int.random(in: -300...300, using: &random))) }
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials, clock: clock())
        expectNoError(await a.sync(), a, isLocked: false)
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials, clock: clock())
        let c = try await Device.join("c", in: directory, server: server.url, credentials: credentials, clock: clock())
        devices = [a, b, c]
        locked = [false, false, false]
        // A few items everyone has, so that edits meet early.
        for _ in 0..<3 { try await add(on: a) }
        for device in devices {
            let report = await device.sync()
            log.append("\(device.name) sync (start) → \(describe(report))")
            expectNoError(report, device, isLocked: false)
        }

        let steps = Int.random(in: 20...40, using: &random)
        for _ in 0..<steps { try await step() }

        // Settle: everyone unlocks, then two rounds of syncs with no new edits.
        for (index, device) in devices.enumerated() where locked[index] {
            try await device.unlock()
            locked[index] = false
            log.append("\(device.name) unlock (settle)")
        }
        for round in 1...2 {
            for device in devices {
                let report = await device.sync()
                log.append("\(device.name) sync (settle \(round)) → \(describe(report))")
                statistics.merges += report.merged
                expectNoError(report, device, isLocked: false)
            }
        }
        let final = try await readableItems(on: a, all: true)
        for device in devices.dropFirst() {
            let items = try await readableItems(on: device, all: true)
            if items != final {
                fail("\(device.name) and a differ: ids only on \(device.name) \(Set(items.keys).subtracting(final.keys).sorted()), "
                    + "only on a \(Set(final.keys).subtracting(items.keys).sorted()), different "
                    + "\(final.filter { items[$0.key] != nil && items[$0.key] != $0.value }.keys.sorted())")
            }
        }
        checkSurvival(final)
    }

    // MARK: Random operations

    private func step() async throws {
        let index = Int.random(in: 0..<devices.count, using: &random)
        let device = devices[index]
        let operation = locked[index]
            ? pick([(.unlock, 1), (.sync, 2)])
            : pick([(.add, 2), (.edit, 6), (.remove, 2), (.lock, 1), (.sync, 3)])
        statistics.operations += 1
        switch operation {
        case .add:
            try await add(on: device)
        case .edit, .remove:
            let readable = try await readableItems(on: device)
            let candidates = order.filter { readable[$0] != nil }
            guard !candidates.isEmpty else { return try await add(on: device) }
            let id = candidates[Int.random(in: 0..<candidates.count, using: &random)]
            guard let item = readable[id] else { return }
            if operation == .edit {
                try await edit(item, on: device)
            } else {
                let known = markers(of: item)
                try await device.remove(id)
                tracked[id]?.removals.append(known)
                statistics.removals += 1
                log.append("\(device.name) remove \(short(id)) (had seen \(known.sorted()))")
            }
        case .lock:
            await device.lock()
            locked[index] = true
            log.append("\(device.name) lock")
        case .unlock:
            try await device.unlock()
            locked[index] = false
            log.append("\(device.name) unlock")
        case .sync:
            let report = await device.sync()
            log.append("\(device.name) sync\(locked[index] ? " (locked)" : "") → \(describe(report))")
            expectNoError(report, device, isLocked: locked[index])
            statistics.syncs += 1
            statistics.merges += report.merged
            if report.error == .syncLocked { statistics.lockedSyncsWithConflicts += 1 }
        }
    }

    private func add(on device: Device) async throws {
        let marker = nextMarker()
        let n = counter
        let origin = "o\(n).example"
        let tag = "tag-\(n)"
        let values: [TextField: String] = [.title: "title-\(n)", .username: "user-\(n)", .password: "pw-\(n)",
                                           .notes: "notes-\(n)"]
        let item = Item(title: values[.title]!, origins: [origin], tags: [tag, marker],
                        entry: Entry(username: values[.username]!, password: values[.password]!, notes: values[.notes]!),
                        created: device.clock.timestamp)
        try await device.vault.add(item)
        var entry = Tracked()
        for (field, value) in values {
            entry.writes[field] = [Write(marker: marker, known: [], value: value)]
            entry.lastWritten[device.name, default: [:]][field.rawValue] = value
        }
        entry.events = [(marker, [])]
        entry.addedOrigins = [origin]
        entry.addedTags = [tag]
        tracked[item.id] = entry
        order.append(item.id)
        log.append("\(device.name) add \(short(item.id)) [\(marker)]")
    }

    private func edit(_ original: Item, on device: Device) async throws {
        var item = original
        let known = markers(of: item)
        let marker = nextMarker()
        let n = counter
        let field = Field.allCases[Int.random(in: 0..<Field.allCases.count, using: &random)]
        var entry = tracked[item.id] ?? Tracked()
        var change: String
        switch field {
        case .title, .username, .password, .notes:
            let textField = TextField(rawValue: field.rawValue)!
            let value = "\(field.rawValue)-\(n)"
            switch textField {
            case .title: item.title = value
            case .username: item.entry.username = value
            case .password: item.entry.password = value
            case .notes: item.entry.notes = value
            }
            entry.writes[textField, default: []].append(Write(marker: marker, known: known, value: value))
            change = "\(field.rawValue) = \(value)"
        case .tags:
            let present = item.tags.filter { !$0.hasPrefix("ev-") }
            if !present.isEmpty && Bool.random(using: &random) {
                let removed = present[Int.random(in: 0..<present.count, using: &random)]
                item.tags.removeAll { $0 == removed }
                entry.removedTags.insert(removed)
                change = "tags -\(removed)"
            } else {
                item.tags.append("tag-\(n)")
                entry.addedTags.insert("tag-\(n)")
                change = "tags +tag-\(n)"
            }
        case .origins:
            if !item.origins.isEmpty && Bool.random(using: &random) {
                let removed = item.origins[Int.random(in: 0..<item.origins.count, using: &random)]
                item.origins.removeAll { $0 == removed }
                entry.removedOrigins.insert(removed)
                change = "origins -\(removed)"
            } else {
                item.origins.append("o\(n).example")
                entry.addedOrigins.insert("o\(n).example")
                change = "origins +o\(n).example"
            }
        }
        item.tags.append(marker)
        try await device.vault.update(item)
        entry.events.append((marker, known))
        statistics.edits += 1
        entry.lastWritten[device.name, default: [:]][field.rawValue] = change
        tracked[item.id] = entry
        log.append("\(device.name) edit \(short(item.id)) \(change) [\(marker), had seen \(known.sorted())]")
    }

    // MARK: Checks

    private func expectNoError(_ report: SyncReport, _ device: Device, isLocked: Bool) {
        guard let error = report.error else { return }
        if isLocked && error == .syncLocked { return }
        fail("\(device.name) sync\(isLocked ? " (locked)" : "") ended in \(error.rawValue): " + (report.message ?? ""))
    }

    private func checkSurvival(_ final: [String: Item]) {
        for id in final.keys where tracked[id] == nil { fail("item \(id) appeared from nowhere") }
        for id in order {
            guard let entry = tracked[id] else { continue }
            let unseenByRemovals = entry.events.filter { event in !entry.removals.contains { $0.contains(event.marker) } }
            guard let item = final[id] else {
                if !unseenByRemovals.isEmpty {
                    fail("item \(short(id)) is gone, but no removal had seen \(unseenByRemovals.map(\.marker)) "
                        + "(last writes: \(entry.lastWritten))")
                }
                continue
            }
            if unseenByRemovals.isEmpty {
                fail("item \(short(id)) exists, but every edit of it was seen by a removal")
                continue
            }
            let markers = markers(of: item)
            let events = Set(entry.events.map(\.marker))
            if !markers.isSubset(of: events) { fail("item \(short(id)) has foreign edit tags \(markers.subtracting(events))") }
            for event in unseenByRemovals where !markers.contains(event.marker) {
                fail("item \(short(id)) lost edit \(event.marker) (final tags \(item.tags))")
            }
            let neverRemoved = entry.removals.isEmpty
            let finalValues: [TextField: String] = [.title: item.title, .username: item.entry.username,
                                                    .password: item.entry.password, .notes: item.entry.notes]
            for (field, value) in finalValues {
                let writes = entry.writes[field] ?? []
                guard writes.contains(where: { $0.value == value }) else {
                    fail("item \(short(id)) \(field.rawValue) is \(value), which no device wrote (last writes: \(entry.lastWritten))")
                    continue
                }
                if neverRemoved {
                    // Not overwritten by a later write that had seen it: one of the concurrent latest.
                    let latest = writes.filter { write in !writes.contains { $0.known.contains(write.marker) } }
                    if !latest.contains(where: { $0.value == value }) {
                        fail("item \(short(id)) \(field.rawValue) is \(value), overwritten by a later edit; "
                            + "the latest were \(latest.map(\.value))")
                    }
                }
            }
            let origins = Set(item.origins)
            let tags = Set(item.tags.filter { !$0.hasPrefix("ev-") })
            if !origins.isSubset(of: entry.addedOrigins) { fail("item \(short(id)) has unknown origins \(origins)") }
            if !tags.isSubset(of: entry.addedTags) { fail("item \(short(id)) has unknown tags \(tags)") }
            if neverRemoved {
                let expectedOrigins = entry.addedOrigins.subtracting(entry.removedOrigins)
                let expectedTags = entry.addedTags.subtracting(entry.removedTags)
                if origins != expectedOrigins {
                    fail("item \(short(id)) origins \(origins.sorted()), expected \(expectedOrigins.sorted())")
                }
                if tags != expectedTags { fail("item \(short(id)) tags \(tags.sorted()), expected \(expectedTags.sorted())") }
            }
        }
    }

    // MARK: Helpers

    /// The items a device can open now. One whose key has not arrived yet is left alone, unless
    /// `all` (after the settling syncs), when it is a failure.
    private func readableItems(on device: Device, all: Bool = false) async throws -> [String: Item] {
        var items: [String: Item] = [:]
        for listed in try await device.vault.listItems() {
            if let item = listed.item {
                items[item.id] = item
            } else if all {
                fail("\(device.name): item \(listed.id) is not readable: \(listed.state)")
            }
        }
        return items
    }

    private func pick(_ weighted: [(Operation, Int)]) -> Operation {
        var roll = Int.random(in: 0..<weighted.reduce(0) { $0 + $1.1 }, using: &random)
        for (operation, weight) in weighted {
            if roll < weight { return operation }
            roll -= weight
        }
        return weighted[0].0
    }

    private func nextMarker() -> String {
        counter += 1
        return "ev-\(counter)"
    }

    private func markers(of item: Item) -> Set<String> { Set(item.tags.filter { $0.hasPrefix("ev-") }) }

    private func short(_ id: String) -> String {
        let position = order.firstIndex(of: id).map { "#\($0 + 1)" } ?? "#?"
        return "\(position)(\(id.prefix(8)))"
    }

    private func describe(_ report: SyncReport) -> String {
        let outcome = report.error?.rawValue ?? "ok"
        return "\(outcome) ↓\(report.downloaded) ↑\(report.uploaded) merged \(report.merged)"
    }
}
