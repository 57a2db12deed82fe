import CofferCore
import Foundation
import XCTest

/// One crash point, one seed: set up two devices on a fresh account, crash, recover, check.
///
/// The starting state (the seed picks the items, which ones each device touches and which device
/// crashes): device A creates the vault and imports 6–7 items, syncs; device B joins. Then the
/// *pusher* edits (a username of item X, the title of Y1, a new item, maybe removes R) and syncs;
/// the *crasher* edits without syncing (the password of X — an item conflict with disjoint
/// fields, the notes of Y2, a new item — a keystore conflict, maybe removes Z). Then the crasher
/// runs the one command that reaches the armed point. Seeds never make both devices touch one
/// field, or one device remove what the other edits, so the merge rules leave one right answer.
final class CrashScenario {
    static let fastKDF = TestVault.fastKDF

    let point: String
    let seed: Int
    let command: CrashCommand
    let server: URL
    let log = CrashLog()
    var problems: [String] = []
    /// What the crashed command left: "present", "absent", or a note.
    var outcome = ""

    var random: SeededRandom
    let directory: URL
    let user: String
    let accountPassword: String
    private let accountPasswordFile: String
    private let importFile: String
    var a: CrashDevice!
    var b: CrashDevice!
    /// The device that runs the crashed command (set once the edits are made).
    var crasher: CrashDevice!
    /// The crasher's acknowledged `device rename` (the `sync.devices.*` points).
    var renamedTo: String?
    /// The rendezvous account of the invitation in flight (the `pair.*` points), once known.
    var rendezvous: (user: String, password: String)?

    /// The items every acknowledged command says should exist, by id.
    var model: [String: ItemFields] = [:]
    /// The model with the crashed command's effect, given the final state (an added item's id is
    /// only known by its title there).
    var withCrashedEffect: ([String: ItemFields]) -> [String: ItemFields] = { _ in [:] }
    /// The files kept with items, by item id and name (`CrashScenario+Attachments`), and what they
    /// are if the crashed command's write committed.
    var files: [String: [String: Data]] = [:]
    var withCrashedFiles: () -> [String: [String: Data]] = { [:] }
    private var crashedCommandHasEffect = false

    init(point: String, seed: Int, server: URL) throws {
        guard let command = CrashCommand.reaching(point) else {
            throw HarnessError("harness bug: no command is known to reach \(point)")
        }
        self.point = point
        self.seed = seed
        self.command = command
        self.server = server
        random = SeededRandom(point: point, seed: seed)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        user = "crash-\(UUID().uuidString.lowercased())"
        accountPassword = "pw-\(UUID().uuidString)"
        accountPasswordFile = directory.appendingPathComponent("account-password").path
        importFile = directory.appendingPathComponent("import.json").path
        try TestVault.writePrivate(Data((accountPassword + "\n").utf8), to: accountPasswordFile)
    }

    func destroy() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs the scenario; `problems` holds what went wrong. Throws only for a harness failure
    /// (a set-up command failed, or the armed point was not reached).
    func run() throws {
        let passphrases = ["old passphrase \(seed) \(random.word())", "new passphrase \(seed) \(random.word())"]
        var files: [String] = []
        for (index, phrase) in passphrases.enumerated() {
            let path = directory.appendingPathComponent("passphrase-\(index)").path
            try TestVault.writePrivate(Data((phrase + "\n").utf8), to: path)
            files.append(path)
        }
        a = try CrashDevice(name: "A", in: directory, passphraseFiles: files, log: log)
        b = try CrashDevice(name: "B", in: directory, passphraseFiles: files, log: log)
        withCrashedEffect = { _ in self.model }
        withCrashedFiles = { self.files }

        try createDevices()
        let (pusher, crasher) = seed % 2 == 1 ? (b!, a!) : (a!, b!)
        self.crasher = crasher
        let targets = try editOnBothDevices(pusher: pusher, crasher: crasher)
        if command != .create {
            try crash(crasher, targets: targets)
            if editsOnTopAfterCrash { try editOnTop(pusher, targets: targets) }
        }
        try recover()
        try check()
    }

    // MARK: Set-up

    private var serverArguments: [String] {
        ["--server", server.absoluteString, "--user", user, "--password-file", accountPasswordFile]
    }

    private func createDevices() throws {
        let initArguments = ["init"] + Self.fastKDF
        // `vault.create.*` crashes `init` on even seeds and `join` on odd ones; `vault.join.*` is in `join` only.
        let crashesJoin = command == .create && (point.hasPrefix("vault.join.") || seed % 2 == 1)
        if command == .create && !crashesJoin {
            try expectCrash(try a.run(initArguments, passphrase: 0, crash: point), on: a)
            try afterCrashedCreate(a, retry: initArguments)
        } else {
            try a.ok(initArguments, "init")
        }
        try a.ok(["account", "signup"] + serverArguments, "account signup")

        let count = 6 + random.below(2)
        var exported: [[String: Any]] = []
        for index in 0..<count {
            let id = Item.newID()
            let fields = ItemFields(title: "item \(seed)-\(index) \(random.word())", username: "user\(index)",
                                    password: "pw-\(random.word())", notes: "notes \(index)",
                                    origins: ["site\(index).example.com"], tags: index % 2 == 0 ? ["even"] : ["odd", "t\(index)"])
            model[id] = fields
            exported.append(fields.exported(id: id))
        }
        try JSONSerialization.data(withJSONObject: exported).write(to: URL(fileURLWithPath: importFile))
        try a.ok(["import", "--format", "json", importFile], "import")
        // Unlocked when a message will be sent to A: only an unlocked sync publishes its device record.
        try a.ok(isMessagePoint ? ["sync", "--unlock"] : ["sync"], "first sync")

        let joinArguments = ["join"] + serverArguments
        if crashesJoin {
            try expectCrash(try b.run(joinArguments, passphrase: 0, crash: point), on: b)
            if point.hasPrefix("vault.join.") {
                try afterCrashedJoin(b)
            } else {
                try afterCrashedCreate(b, retry: joinArguments)
            }
        } else {
            try b.ok(joinArguments, "join")
        }
    }

    /// After `init` or `join` died before linking the new file: nothing (or a complete vault) at
    /// the path, and the command works when run again.
    private func afterCrashedCreate(_ device: CrashDevice, retry arguments: [String]) throws {
        let manager = FileManager.default
        let directory = (device.path as NSString).deletingLastPathComponent
        let leftovers = ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).filter { $0 != "vault.db" }
        if manager.fileExists(atPath: device.path) {
            let status = try device.run(["status", "--json"])
            if status.status != 0 {
                problems.append("after the crash a half-made vault is at \(device.name)'s path: \(status.summary)")
            }
            problems.append("a vault exists at \(device.name)'s path after a crash before it was linked")
            outcome = "a vault at the path"
        } else {
            outcome = "no vault at the path" + (leftovers.isEmpty ? "" : " (left behind: \(leftovers.sorted().joined(separator: ", ")))")
            let again = try device.run(arguments, passphrase: 0)
            if again.status != 0 {
                problems.append("`\(arguments[0])` after the crash failed on \(device.name): \(again.summary)")
                throw HarnessError("cannot continue without \(device.name)")
            }
            let remaining = ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains(".creating-") }
            if !remaining.isEmpty {
                problems.append("`\(arguments[0])` after the crash left the crashed creation's files: \(remaining.sorted())")
            }
        }
    }

    struct Targets {
        var conflicted: String
        var renamedByPusher: String
        var notedByCrasher: String
        var untouched: [String]
    }

    private func editOnBothDevices(pusher: CrashDevice, crasher: CrashDevice) throws -> Targets {
        let ids = random.shuffled(model.keys.sorted())
        let x = ids[0], y1 = ids[1], y2 = ids[2]
        var untouched = [ids[3], ids[4]]

        // The pusher's edits reach the server before the crash.
        let username = "user-from-\(pusher.name)-\(random.word())"
        try pusher.ok(["edit", x, "--username", username], "edit")
        model[x]?.username = username
        let title = (model[y1]?.title ?? "") + " renamed on \(pusher.name)"
        try pusher.ok(["edit", y1, "--title", title], "edit")
        model[y1]?.title = title
        try add(on: pusher, ItemFields(title: "added on \(pusher.name) \(random.word())", username: "p",
                                       password: "pw-\(random.word())", origins: ["pusher.example.com"], tags: ["new"]))
        if random.bool() {
            try pusher.ok(["rm", "--purge", ids[5]], "rm")
            model[ids[5]] = nil
        } else {
            untouched.append(ids[5])
        }
        try attachFile(on: pusher, to: y1, name: "from-\(pusher.name).bin", size: 600_000)
        try pusher.ok(["sync", "--unlock"], "the pusher's sync")

        // The crasher's edits wait in its pending table.
        let password = "password-from-\(crasher.name)-\(random.word())"
        try crasher.ok(["edit", x, "--password", password], "edit")
        model[x]?.password = password
        let notes = "notes from \(crasher.name) \(random.word())"
        try crasher.ok(["edit", y2, "--notes", notes], "edit")
        model[y2]?.notes = notes
        try add(on: crasher, ItemFields(title: "added on \(crasher.name) \(random.word())", username: "c",
                                        password: "pw-\(random.word())", notes: "from the crasher", tags: ["new", "c"]))
        if ids.count > 6 {
            if random.bool() {
                try crasher.ok(["rm", "--purge", ids[6]], "rm")
                model[ids[6]] = nil
            } else {
                untouched.append(ids[6])
            }
        }
        try attachFile(on: crasher, to: y2, name: "from-\(crasher.name).bin", size: 200_000)
        return Targets(conflicted: x, renamedByPusher: y1, notedByCrasher: y2, untouched: untouched)
    }

    private func add(on device: CrashDevice, _ fields: ItemFields) throws {
        let result = try device.ok(["add"] + fields.addOptions, "add")
        let id = result.line
        guard UUID(uuidString: id) != nil else { throw HarnessError("add printed no id: \(result.summary)") }
        model[id] = fields
    }

    // MARK: The crash

    private func crash(_ crasher: CrashDevice, targets: Targets) throws {
        log.note("crasher \(crasher.name), armed \(point)")
        let arguments: [String]?
        switch command {
        case .create:
            return
        case .add:
            let fields = ItemFields(title: "crashed add \(seed) \(random.word())", username: "crash",
                                    password: "pw-\(random.word())", notes: "added while \(point) was armed",
                                    origins: ["crash.example.com"], tags: ["crash"])
            arguments = ["add"] + fields.addOptions
            withCrashedEffect = { actual in
                var expected = self.model
                let id = actual.first { $0.value.title == fields.title }?.key ?? "<the crashed add>"
                expected[id] = fields
                return expected
            }
        case .addAll:
            var added: [String: ItemFields] = [:]
            for index in 0..<(2 + random.below(2)) {
                added[Item.newID()] = ItemFields(title: "crashed import \(seed)-\(index) \(random.word())",
                                                 username: "imported", password: "pw-\(random.word())",
                                                 origins: ["import\(index).example.com"], tags: ["imported"])
            }
            let file = directory.appendingPathComponent("crashed-import.json").path
            try JSONSerialization.data(withJSONObject: added.map { $0.value.exported(id: $0.key) })
                .write(to: URL(fileURLWithPath: file))
            arguments = ["import", "--format", "json", file]
            withCrashedEffect = { _ in self.model.merging(added) { _, new in new } }
        case .edit:
            // An item only the pusher renamed, or one nobody touched: password and notes at once.
            let id = random.bool() ? targets.renamedByPusher : targets.untouched[0]
            let password = "crashed-edit-\(random.word())", notes = "edited while \(point) was armed"
            arguments = ["edit", id, "--password", password, "--notes", notes]
            withCrashedEffect = { _ in
                var expected = self.model
                expected[id]?.password = password
                expected[id]?.notes = notes
                return expected
            }
        case .remove:
            // An item only the crasher edited, or one nobody touched (never one the pusher edited:
            // a remote update beats a local removal).
            let id = random.bool() ? targets.notedByCrasher : targets.untouched[1]
            arguments = ["rm", "--purge", id]
            withCrashedEffect = { _ in
                var expected = self.model
                expected[id] = nil
                return expected
            }
            withCrashedFiles = {
                var expected = self.files
                expected[id] = nil
                return expected
            }
        case .passwd:
            arguments = ["passwd", "--new-passphrase-file", crasher.passphraseFiles[1]] + Self.fastKDF
        case .sync where point.hasPrefix("sync.outbox."):
            // The crasher sends: `device lock` queues the message, then syncs to send it.
            arguments = ["device", "lock", try DeviceMessageCheck.deviceID(of: otherDevice(than: crasher))]
        case .sync:
            if isMessagePoint {
                try otherDevice(than: crasher).ok(["device", "lock", try DeviceMessageCheck.deviceID(of: crasher)], "device lock")
            }
            arguments = ["sync", "--unlock"]
        case .devices:
            try renameBeforeCrash(crasher)
            arguments = ["device", "list"]
        case .pair:
            try crashWhilePairing(crasher)
            arguments = nil
        case .attach, .detach:
            arguments = try crashingFileCommand(targets: targets)
        }
        if let arguments {
            if point.hasPrefix("agent.") {
                try crashInAgent(crasher, arguments)
            } else {
                try expectCrash(try crasher.run(arguments, passphrase: crasher.passphrase, crash: point), on: crasher)
            }
        }

        // Reopen right after the crash: the file is sound and the vault opens.
        let integrity = sqliteIntegrity(crasher.path)
        if integrity != "ok" { problems.append("right after the crash, integrity_check on \(crasher.name): \(integrity)") }
        let status = try crasher.run(["status", "--json"])
        if status.status != 0 { problems.append("right after the crash \(crasher.name) does not open: \(status.summary)") }
        if command == .passwd { try checkPassphrasesAfterCrash(crasher) }
    }

    /// Points of the message steps: a `device lock` message is in flight when the crash comes.
    var isMessagePoint: Bool { point.hasPrefix("sync.messages.") || point.hasPrefix("sync.outbox.") }

    func otherDevice(than device: CrashDevice) -> CrashDevice { device === a ? b : a }

    func expectCrash(_ result: CofferResult, on device: CrashDevice) throws {
        guard result.status == CrashPoint.exitCode else {
            throw HarnessError("harness bug: \(point) was not reached on \(device.name) "
                + "(exit \(result.status), not \(CrashPoint.exitCode)): \(result.summary)")
        }
    }

    /// Exactly one of the old and new passphrases opens the vault: the new one once the write committed.
    private func checkPassphrasesAfterCrash(_ crasher: CrashDevice) throws {
        let old = try crasher.run(["list"], passphrase: 0)
        let new = try crasher.run(["list"], passphrase: 1)
        let opening = [old, new].enumerated().filter { $0.element.status == 0 }.map(\.offset)
        if opening.count != 1 {
            problems.append("after the crash \(opening.count) of the old/new passphrases open \(crasher.name) "
                + "(old → exit \(old.status), new → exit \(new.status))")
        }
        if let which = opening.first {
            crasher.passphrase = which
            let expected = point.hasSuffix("after-write") ? 1 : 0
            outcome = which == 1 ? "the new passphrase opens the vault" : "the old passphrase opens the vault"
            if which != expected {
                problems.append("after a crash at \(point) the \(which == 1 ? "new" : "old") passphrase opens \(crasher.name), "
                    + "expected the \(expected == 1 ? "new" : "old") one")
            }
        }
        for (name, result) in [("old", old), ("new", new)] where result.status != 0 && result.status != 3 {
            problems.append("after the crash, `list` with the \(name) passphrase: \(result.summary)")
        }
    }

    /// Every third seed, the other device changes, after the crash and before the crasher
    /// recovers, the field the crasher changed in the conflicted item: on top of the crasher's
    /// version if the crashed sync got it to the server, else against the crasher's pending edit.
    var editsOnTopAfterCrash: Bool { seed % 3 == 0 }

    private func editOnTop(_ pusher: CrashDevice, targets: Targets) throws {
        log.note("\(pusher.name) edits on top before the crasher recovers")
        try pusher.ok(["sync", "--unlock"], "sync before editing on top")
        let password = "password-on-top-from-\(pusher.name)-\(random.word())"
        try pusher.ok(["edit", targets.conflicted, "--password", password], "edit on top")
        try pusher.ok(["sync", "--unlock"], "sync after editing on top")
        // Made after the crasher's edit of the same field, it is the later change and wins whether
        // or not the server had the crasher's version (field times, the Airmail journal). Before field times
        // the crasher's pending change won when the server never got it (local over remote): the
        // seeds that edit on top (every third) failed at every such point until this said so.
        model[targets.conflicted]?.password = password
    }

    // MARK: Recovery and checks

    private func recover() throws {
        for device in [a!, b!, a!] {
            let result = try device.unlocked(["sync", "--unlock"])
            if result.status != 0 { problems.append("recovery sync on \(device.name) failed: \(result.summary)") }
        }
    }

    /// What one device shows: `list --json` and `show --json --reveal` of every listed id,
    /// without the device-local badges (⚑ "merged, not reviewed" is per device).
    private struct Shown: Equatable {
        var list: String
        var shows: [String: String]
        var fields: [String: ItemFields]
        var badges: [String: [String]]
    }

    private func shown(_ device: CrashDevice) throws -> Shown {
        let list = try device.ok(["list", "--json"], "list")
        if !list.err.isEmpty { problems.append("`list` on \(device.name) warns: \(list.err.trimmingCharacters(in: .newlines))") }
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: list.stdout) as? [[String: Any]])
        var badges: [String: [String]] = [:]
        var stripped: [[String: Any]] = []
        for var entry in entries {
            let id = entry["id"] as? String ?? ""
            badges[id] = entry.removeValue(forKey: "badges") as? [String] ?? []
            stripped.append(entry)
        }
        let ids = entries.compactMap { $0["id"] as? String }
        let global = ["--vault", device.path, "--passphrase-file", device.passphraseFiles[device.passphrase]]
        let results = try CrashProcess.runAll(binary: try CrashBinary.path(),
                                              ids.map { global + ["show", $0, "--json", "--reveal"] }, home: device.root)
        var shows: [String: String] = [:]
        var fields: [String: ItemFields] = [:]
        for (id, result) in zip(ids, results) {
            log.record(device: device.name, result, crash: nil)
            guard result.status == 0, var object = try? JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
                problems.append("show \(id) on \(device.name) failed: \(result.summary)")
                continue
            }
            object.removeValue(forKey: "badges")
            shows[id] = try canonicalJSON(object)
            fields[id] = ItemFields(shown: object)
        }
        return Shown(list: try canonicalJSON(stripped), shows: shows, fields: fields, badges: badges)
    }

    private func check() throws {
        for device in [a!, b!] {
            let integrity = sqliteIntegrity(device.path)
            if integrity != "ok" { problems.append("integrity_check on \(device.name): \(integrity)") }
            let status = try device.status()
            let pending = (status["pending"] as? Int ?? -1) + (status["pendingVaultRecords"] as? Int ?? 0), conflicts = status["conflicts"] as? Int ?? -1
            if pending != 0 || conflicts != 0 {
                problems.append("after recovery \(device.name) has pending \(pending), conflicts \(conflicts) "
                    + "(last error \(status["lastError"] ?? "none"))")
            }
        }

        // Convergence, allowing one more sync.
        var onA = try shown(a), onB = try shown(b)
        if onA.list != onB.list || onA.shows != onB.shows {
            log.note("A and B differ after recovery; one more sync on B")
            let again = try b.unlocked(["sync", "--unlock"])
            if again.status != 0 { problems.append("the extra sync on B failed: \(again.summary)") }
            onA = try shown(a)
            onB = try shown(b)
            if onA.list != onB.list || onA.shows != onB.shows {
                problems.append("A and B did not converge: " + describeDivergence(onA, onB))
            }
        }
        for (device, view) in [(a!, onA), (b!, onB)] {
            for (id, marks) in view.badges where marks.contains(where: { $0 != "merged" && $0 != "disabled" }) {
                problems.append("\(device.name) still marks \(id) \(marks)")
            }
        }

        // The server holds each item once, and exactly what the devices list.
        let serverIDs = try CrashServer.recordIDs(server: server, user: user, password: accountPassword, collection: "items",
                                                  liveItemsOnly: true)
        let duplicated = Dictionary(grouping: serverIDs, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        if !duplicated.isEmpty { problems.append("duplicate server records: \(duplicated)") }
        for (device, view) in [(a!, onA), (b!, onB)] where Set(serverIDs) != Set(view.fields.keys) || serverIDs.count != view.fields.count {
            let missing = Set(view.fields.keys).subtracting(serverIDs).sorted()
            let extra = Set(serverIDs).subtracting(view.fields.keys).sorted()
            problems.append("server has \(serverIDs.count) item records, \(device.name) lists \(view.fields.count) "
                + "(not on the server: \(missing), only on the server: \(extra))")
        }
        let keystores = try CrashServer.recordIDs(server: server, user: user, password: accountPassword, collection: "keystores")
        if keystores != [CollectionName.keystoreID] { problems.append("server keystore records: \(keystores)") }

        // No acknowledged edit lost; the crashed command's edit all there or all absent.
        let actual = onA.fields
        let without = stateDifferences(actual: actual, expected: model)
        let with = stateDifferences(actual: actual, expected: withCrashedEffect(actual))
        let effectful = [.add, .addAll, .edit, .remove].contains(command)
        if without.isEmpty || with.isEmpty {
            if effectful {
                let present = with.isEmpty
                outcome = present ? "its edit present" : "its edit absent"
                let committed = point.hasSuffix("after-write")
                if present != committed {
                    problems.append("the crashed command's edit is \(present ? "present" : "absent") after a crash at \(point) "
                        + "(the transaction \(committed ? "had" : "had not") committed)")
                }
            }
        } else {
            if effectful {
                let closer = with.count < without.count ? with : without
                problems.append("final state differs from every acceptable outcome "
                    + "(\(closer == with ? "with" : "without") the crashed command's edit): " + closer.joined(separator: "; "))
            } else {
                problems.append("final state differs from what the acknowledged commands made (expected → actual): "
                    + without.joined(separator: "; "))
            }
        }

        try checkFiles(itemIDs: Set(actual.keys))
        if command == .passwd { try checkPassphrasesAfterRecovery() }
        if command == .devices { try checkDeviceRecords() }
        if command == .pair { try checkNothingOfTheInvitationLeft() }
        if isMessagePoint {
            problems += try DeviceMessageCheck.deliveredOnce(devices: [a, b], server: server, user: user, password: accountPassword)
        }
    }

    /// Both devices open with the same one passphrase.
    private func checkPassphrasesAfterRecovery() throws {
        var opening: [String: [Int]] = [:]
        for device in [a!, b!] {
            opening[device.name] = try (0...1).filter { try device.run(["list"], passphrase: $0).status == 0 }
        }
        if opening["A"]?.count != 1 || opening["A"] != opening["B"] {
            problems.append("after recovery the passphrases that open A: \(opening["A"] ?? []), B: \(opening["B"] ?? []) "
                + "(0 old, 1 new)")
        }
    }

    private func describeDivergence(_ onA: Shown, _ onB: Shown) -> String {
        var parts: [String] = []
        let idsA = Set(onA.shows.keys), idsB = Set(onB.shows.keys)
        if idsA != idsB {
            parts.append("only on A \(idsA.subtracting(idsB).sorted()), only on B \(idsB.subtracting(idsA).sorted())")
        }
        for id in idsA.intersection(idsB).sorted() where onA.shows[id] != onB.shows[id] {
            let fieldDiff = onB.fields[id].flatMap { b in onA.fields[id].map { $0.differences(from: b) } } ?? []
            parts.append("\(id): " + (fieldDiff.isEmpty ? "A \(onA.shows[id]!.prefix(400)) vs B \(onB.shows[id]!.prefix(400))"
                                                        : "B → A " + fieldDiff.joined(separator: ", ")))
        }
        if parts.isEmpty { parts.append("list A \(onA.list.prefix(400)) vs B \(onB.list.prefix(400))") }
        return parts.joined(separator: "; ")
    }
}
