import CofferCore
import Foundation

/// Files in the crash scenarios (issue 30): the pusher keeps one with an item before its sync (the
/// crasher's sync downloads it), the crasher keeps one before the crash (its sync uploads it), and
/// the `attach`/`detach` commands crash themselves. After recovery both devices hold exactly the
/// files the acknowledged commands made — the crashed one's all there or all absent — byte for byte.
extension CrashScenario {
    /// Keeps `size` bytes of this scenario's own with item `id` on `device`.
    func attachFile(on device: CrashDevice, to id: String, name: String, size: Int) throws {
        let bytes = Data((0..<size).map { _ in UInt8(random.below(256)) })
        let path = directory.appendingPathComponent("file-\(name)").path
        try bytes.write(to: URL(fileURLWithPath: path))
        try device.ok(["attach", id, path, "--name", name], "attach")
        files[id, default: [:]][name] = bytes
    }

    /// The crashed `attach` (a new file on an item nobody touched) or `detach` (the crasher's own file).
    func crashingFileCommand(targets: Targets) throws -> [String] {
        if command == .attach {
            let id = targets.untouched[0]
            let bytes = Data((0..<300_000).map { _ in UInt8(random.below(256)) })
            let path = directory.appendingPathComponent("crashed-attach.bin").path
            try bytes.write(to: URL(fileURLWithPath: path))
            withCrashedFiles = {
                var expected = self.files
                expected[id, default: [:]]["crashed.bin"] = bytes
                return expected
            }
            return ["attach", id, path, "--name", "crashed.bin"]
        }
        let id = targets.notedByCrasher
        let name = "from-\(crasher.name).bin"
        withCrashedFiles = {
            var expected = self.files
            expected[id]?[name] = nil
            if expected[id]?.isEmpty == true { expected[id] = nil }
            return expected
        }
        return ["detach", id, name]
    }

    /// Every file each device holds, read back through `attachments` and `attachment`.
    private func filesShown(on device: CrashDevice, itemIDs: Set<String>) throws -> [String: [String: Data]] {
        var shown: [String: [String: Data]] = [:]
        for id in itemIDs.sorted() {
            let listed = try device.ok(["attachments", id, "--json"], "attachments")
            let names = ((try? JSONSerialization.jsonObject(with: listed.stdout)) as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            for name in names {
                let read = try device.run(["attachment", id, name], passphrase: device.passphrase)
                if read.status != 0 {
                    problems.append("`attachment \(id) \(name)` on \(device.name) failed: \(read.summary)")
                    continue
                }
                shown[id, default: [:]][name] = read.stdout
            }
        }
        return shown
    }

    func checkFiles(itemIDs: Set<String>) throws {
        let without = files.filter { itemIDs.contains($0.key) }
        let with = withCrashedFiles().filter { itemIDs.contains($0.key) }
        for device in [a!, b!] {
            let shown = try filesShown(on: device, itemIDs: itemIDs)
            guard shown == without || shown == with else {
                let describe = { (files: [String: [String: Data]]) in
                    files.map { "\($0.key): \($0.value.map { "\($0.key) (\($0.value.count) bytes)" }.sorted())" }.sorted()
                }
                problems.append("the files on \(device.name) are \(describe(shown)), expected \(describe(without))"
                    + (with == without ? "" : " or \(describe(with))"))
                continue
            }
            guard [.attach, .detach].contains(command), with != without else { continue }
            let present = shown == with
            let committed = point.hasSuffix("after-write")
            outcome = present ? "its file change present" : "its file change absent"
            if present != committed {
                problems.append("the crashed \(command.rawValue) is \(present ? "present" : "absent") on \(device.name) after a crash at \(point)")
            }
        }
    }
}
