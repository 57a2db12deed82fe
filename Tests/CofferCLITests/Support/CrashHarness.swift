import CofferCore
import CofferTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
import XCTest

// The crash-point harness (`make reliability`): for one armed crash point and one seed, build a
// two-device state on a real Kinto account with the real binary, run the ONE command that reaches
// the point with `COFFER_CRASH_POINT` set, then recover (sync A, B, A) and check what must hold.

/// Which command reaches a crash point, from the point's name.
enum CrashCommand: String, CaseIterable, Sendable {
    /// `init` (even seeds) or `join` (odd seeds): the new vault file is linked into place.
    case create
    case add
    /// `import`: every item in one transaction.
    case addAll
    case edit
    case remove
    case passwd
    /// `sync --unlock` with local changes, remote changes, an item conflict and a keystore conflict.
    case sync
    /// `device list` after `device rename`: this device's record is published, the registry listed.
    case devices
    /// `device invite` on the crasher, or `join --code` on a third device answered by it.
    case pair
    /// `attach`: a file kept with an item. `detach`: one removed.
    case attach
    case detach

    /// The command from the point's name; `agent.*` points are the same edits made through an
    /// agent (`coffer unlock`), which is the process that dies.
    static func reaching(_ point: String) -> CrashCommand? {
        let table: [(String, CrashCommand)] = [
            ("vault.create.", .create), ("vault.join.", .create), ("vault.add-all.", .addAll), ("vault.add.", .add),
            ("vault.update.", .edit), ("vault.remove.", .remove), ("vault.passwd.", .passwd),
            ("vault.attach.", .attach), ("vault.detach.", .detach),
            ("agent.add.", .add), ("agent.update.", .edit), ("agent.remove.", .remove),
            ("sync.devices.", .devices), ("sync.", .sync), ("pair.", .pair),
        ]
        return table.first { point.hasPrefix($0.0) }?.1
    }
}

/// The points and seeds a run visits, from `COFFER_CRASH_POINTS` (`quick`, the default; `all`; or
/// names separated by commas) and `COFFER_CRASH_SEEDS` (how many seeds per point, default 1).
enum CrashSelection {
    /// A representative subset for `make test`: each command, each sync step, both collections.
    static let quick = [
        "vault.create.before-link",
        "vault.add.inside-write",
        "vault.add-all.after-write",
        "vault.update.after-write",
        "vault.remove.inside-write",
        "vault.passwd.after-write",
        "sync.fetch.keystores.inside",
        "sync.reconcile.items.inside",
        "sync.reconcile.keystores.after",
        "sync.push.items.after-send",
        "sync.apply.inside",
        "sync.messages.handle.after",
        "sync.devices.register.after-send",
        "pair.host.waiting",
        "agent.update.after-write",
        "vault.attach.inside-write",
        "vault.detach.after-write",
        "sync.attachments.download.chunk",
    ]

    static func points(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let value = (environment["COFFER_CRASH_POINTS"] ?? "").trimmingCharacters(in: .whitespaces)
        switch value.lowercased() {
        case "", "quick": return quick
        case "all": return CrashPoint.all
        default: return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    /// `COFFER_CRASH_SEEDS=N` runs seeds 1…N; `A-B` runs seeds A…B (to replay one seed).
    static func seeds(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ClosedRange<Int> {
        let value = environment["COFFER_CRASH_SEEDS"] ?? ""
        let bounds = value.split(separator: "-").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if bounds.count == 2, bounds[0] >= 1, bounds[0] <= bounds[1] { return bounds[0]...bounds[1] }
        return 1...max(1, Int(value) ?? 1)
    }
}

/// The real Kinto (`COFFER_TEST_KINTO_URL`, …/v1); a failure without it.
enum CrashServer {
    static func require(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try TestKinto.url(file: file, line: line)
    }

    /// Every record id of a collection of the account's default bucket, as the server lists them
    /// (deleted records are not listed), following `Next-Page`.
    /// `liveItemsOnly` leaves out sealed removals (records with `deleted: true`, which the server
    /// keeps since 2026-12-07): the items a device should list.
    static func recordIDs(server: URL, user: String, password: String, collection: String,
                          liveItemsOnly: Bool = false) throws -> [String] {
        var next: URL? = server.appendingPathComponent("buckets/default/collections/\(collection)/records")
        var ids: [String] = []
        let authorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        while let url = next {
            var request = URLRequest(url: url, timeoutInterval: 15)
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
            let (data, response) = try HTTPGet.run(request)
            guard response.statusCode == 200 else {
                throw HarnessError("GET \(url.path) answered \(response.statusCode): \(String(decoding: data, as: UTF8.self).prefix(300))")
            }
            guard let body = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let records = body["data"] as? [[String: Any]] else {
                throw HarnessError("GET \(url.path): not a Kinto record list")
            }
            ids += records.filter { !liveItemsOnly || $0["deleted"] as? Bool != true }.compactMap { $0["id"] as? String }
            next = (response.value(forHTTPHeaderField: "Next-Page")).flatMap(URL.init(string:))
        }
        return ids
    }
}

/// A private copy of `.build/debug/coffer`, taken once per run: others may relink the shared
/// binary while a long run goes on ("Text file busy").
enum CrashBinary {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var copied: String?

    static func path() throws -> String {
        try lock.withLock {
            if let copied { return copied }
            let original = try CofferBinary.require()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-crash-bin-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let copy = directory.appendingPathComponent("coffer").path
            var lastError: Error = HarnessError("cannot copy \(original)")
            for _ in 0..<30 {
                do {
                    try? FileManager.default.removeItem(atPath: copy)
                    try FileManager.default.copyItem(atPath: original, toPath: copy)
                    chmod(copy, 0o755)
                    if try CrashProcess.run(binary: copy, ["--version"], home: directory, environment: [:]).status == 0 {
                        copied = copy
                        return copy
                    }
                } catch {
                    lastError = error
                }
                sleep(2) // being relinked: wait for the linker
            }
            throw lastError
        }
    }

    /// Removes the copy (at the end of the test class).
    static func remove() {
        lock.withLock {
            if let copied { try? FileManager.default.removeItem(atPath: (copied as NSString).deletingLastPathComponent) }
            copied = nil
        }
    }
}

/// Runs the binary as `CofferProcess` does (clean environment, files for the streams), for a
/// given binary.
enum CrashProcess {
    static func run(binary: String, _ arguments: [String], home: URL, environment: [String: String],
                    timeout: TimeInterval = 120) throws -> CofferResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputURL = scratch.appendingPathComponent("stdin")
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        for url in [inputURL, outputURL, errorURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let input = try FileHandle(forReadingFrom: inputURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        defer {
            try? input.close()
            try? output.close()
            try? errors.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = [
            "PATH": "/usr/bin:/bin",
            "HOME": home.path,
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            // Each device's agent socket in its own directory (`coffer unlock` in the agent points).
            "XDG_RUNTIME_DIR": home.path,
        ].merging(environment) { _, given in given }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                timedOut = true
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        return CofferResult(arguments: arguments, status: process.terminationStatus, stdout: try Data(contentsOf: outputURL),
                            stderr: try Data(contentsOf: errorURL), timedOut: timedOut)
    }

    /// Independent runs, two at a time; results in order.
    static func runAll(binary: String, _ runs: [[String]], home: URL, timeout: TimeInterval = 120) throws -> [CofferResult] {
        final class Slots: @unchecked Sendable {
            let lock = NSLock()
            var values: [Result<CofferResult, Error>?]
            init(_ count: Int) { values = Array(repeating: nil, count: count) }
        }
        let slots = Slots(runs.count)
        let next = NSLock()
        nonisolated(unsafe) var position = 0
        DispatchQueue.concurrentPerform(iterations: min(2, runs.count)) { _ in
            while true {
                let index: Int? = next.withLock {
                    guard position < runs.count else { return nil }
                    defer { position += 1 }
                    return position
                }
                guard let index else { return }
                let result = Result { try run(binary: binary, runs[index], home: home, environment: [:], timeout: timeout) }
                slots.lock.withLock { slots.values[index] = result }
            }
        }
        return try slots.values.map { try $0!.get() }
    }
}

/// A blocking GET, for a harness that runs processes one after another anyway.
enum HTTPGet {
    private final class Box: @unchecked Sendable {
        var result: Result<(Data, HTTPURLResponse), Error> = .failure(HarnessError("no answer"))
    }

    static func run(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error {
                box.result = .failure(error)
            } else if let response = response as? HTTPURLResponse {
                box.result = .success((data ?? Data(), response))
            }
            done.signal()
        }.resume()
        done.wait()
        return try box.result.get()
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `PRAGMA integrity_check` of a vault file, opened read-only.
func sqliteIntegrity(_ path: String) -> String {
    do {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let rows = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        try queue.close()
        return rows.joined(separator: "; ")
    } catch {
        return "cannot open: \(error)"
    }
}

/// Deterministic randomness for a seed (SplitMix64).
struct SeededRandom {
    private var state: UInt64

    init(point: String, seed: Int) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 // FNV-1a of the point, mixed with the seed
        for byte in point.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        state = hash ^ (UInt64(seed) &* 0x9e37_79b9_7f4a_7c15)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func bool() -> Bool { next() & 1 == 1 }
    mutating func word() -> String { String(next() % 1_000_000, radix: 36) }

    mutating func shuffled<T>(_ values: [T]) -> [T] {
        var result = values
        for index in stride(from: result.count - 1, to: 0, by: -1) {
            result.swapAt(index, below(index + 1))
        }
        return result
    }
}

/// The fields of an item the model predicts (what `show --json --reveal` prints of them).
struct ItemFields: Equatable, CustomStringConvertible {
    var title: String
    var username = ""
    var password = ""
    var notes = ""
    var origins: [String] = []
    var tags: [String] = []
    var disabled = false

    init(title: String, username: String = "", password: String = "", notes: String = "",
         origins: [String] = [], tags: [String] = []) {
        self.title = title
        self.username = username
        self.password = password
        self.notes = notes
        self.origins = origins
        self.tags = tags
    }

    init(shown object: [String: Any]) {
        title = object["title"] as? String ?? "<no title>"
        username = object["username"] as? String ?? ""
        password = object["password"] as? String ?? ""
        notes = object["notes"] as? String ?? ""
        origins = object["origins"] as? [String] ?? []
        tags = object["tags"] as? [String] ?? []
        disabled = object["disabled"] as? Bool ?? false
    }

    /// An element of an import file, with the id given.
    func exported(id: String) -> [String: Any] {
        ["id": id, "title": title, "username": username, "password": password, "notes": notes,
         "origins": origins, "tags": tags, "disabled": disabled]
    }

    /// `add` options that create these fields.
    var addOptions: [String] {
        ["--title", title, "--username", username, "--password", password, "--notes", notes]
            + origins.flatMap { ["--origin", $0] } + tags.flatMap { ["--tag", $0] }
    }

    var description: String {
        "{title \(title), username \(username), password \(password), notes \(notes), origins \(origins), tags \(tags)\(disabled ? ", disabled" : "")}"
    }

    /// The fields that differ from `other`, named.
    func differences(from other: ItemFields) -> [String] {
        var result: [String] = []
        if title != other.title { result.append("title \(other.title) → \(title)") }
        if username != other.username { result.append("username \(other.username) → \(username)") }
        if password != other.password { result.append("password \(other.password) → \(password)") }
        if notes != other.notes { result.append("notes \(other.notes) → \(notes)") }
        if origins != other.origins { result.append("origins \(other.origins) → \(origins)") }
        if tags != other.tags { result.append("tags \(other.tags) → \(tags)") }
        if disabled != other.disabled { result.append("disabled \(other.disabled) → \(disabled)") }
        return result
    }
}

/// How a final state differs from a predicted one; empty when they are equal.
func stateDifferences(actual: [String: ItemFields], expected: [String: ItemFields]) -> [String] {
    var result: [String] = []
    for id in expected.keys.sorted() where actual[id] == nil {
        result.append("missing \(id) \(expected[id]!.title)")
    }
    for id in actual.keys.sorted() where expected[id] == nil {
        result.append("unexpected \(id) \(actual[id]!)")
    }
    for id in expected.keys.sorted() {
        guard let have = actual[id], let want = expected[id], have != want else { continue }
        result.append("\(id) \(want.title): " + have.differences(from: want).joined(separator: ", "))
    }
    return result
}

/// One device: a vault file in its own home directory, and the passphrase files it may need.
final class CrashDevice: @unchecked Sendable {
    let name: String
    let root: URL
    let path: String
    /// 0: the passphrase the vault was created with; 1: the one `passwd` sets.
    let passphraseFiles: [String]
    /// The passphrase that opened this vault last.
    var passphrase = 0
    let log: CrashLog

    init(name: String, in directory: URL, passphraseFiles: [String], log: CrashLog) throws {
        self.name = name
        root = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        path = root.appendingPathComponent("vault/vault.db").path
        self.passphraseFiles = passphraseFiles
        self.log = log
    }

    /// `coffer --vault PATH [--passphrase-file F] ARGUMENTS` with `COFFER_CRASH_POINT` when `crash` is set.
    func run(_ arguments: [String], passphrase: Int? = nil, crash: String? = nil) throws -> CofferResult {
        let unlock = passphrase.map { ["--passphrase-file", passphraseFiles[$0]] } ?? []
        let environment = crash.map { [CrashPoint.environmentVariable: $0] } ?? [:]
        let result = try CrashProcess.run(binary: try CrashBinary.path(), ["--vault", path] + unlock + arguments,
                                          home: root, environment: environment)
        if result.timedOut { throw HarnessError("coffer \(arguments.joined(separator: " ")) on \(name) ran over 120 s") }
        log.record(device: name, result, crash: crash)
        return result
    }

    /// Runs a command that needs the passphrase: with the one that worked last, else (exit 3,
    /// changed by `passwd` on this or another device) with the other.
    func unlocked(_ arguments: [String]) throws -> CofferResult {
        let first = try run(arguments, passphrase: passphrase)
        guard first.status == 3 else { return first }
        let second = try run(arguments, passphrase: 1 - passphrase)
        if second.status != 3 { passphrase = 1 - passphrase }
        return second
    }

    /// Like `unlocked`, and exit 0 is required.
    @discardableResult
    func ok(_ arguments: [String], _ what: String) throws -> CofferResult {
        let result = try unlocked(arguments)
        guard result.status == 0 else { throw HarnessError("\(what) on \(name) failed: \(result.summary)") }
        return result
    }

    func status() throws -> [String: Any] {
        let result = try run(["status", "--json"])
        guard result.status == 0 else { throw HarnessError("status on \(name) failed: \(result.summary)") }
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }
}

/// The commands a scenario ran, shown when it fails.
final class CrashLog: @unchecked Sendable {
    private var lines: [String] = []

    func record(device: String, _ result: CofferResult, crash: String?) {
        let arguments = result.arguments.drop { $0 != "--vault" }.dropFirst(2)
            .filter { !$0.hasPrefix("/") }.joined(separator: " ")
        var line = "  \(device): coffer \(arguments.prefix(160)) → \(result.status)"
        if let crash { line += " [armed \(crash)]" }
        let error = result.err.trimmingCharacters(in: .whitespacesAndNewlines)
        if !error.isEmpty { line += " stderr: \(error.prefix(300))" }
        lines.append(line)
    }

    func note(_ text: String) { lines.append("  -- \(text)") }

    var text: String { lines.suffix(60).joined(separator: "\n") }
}
