import CofferCore
import Foundation
import GRDB

// `make bench`'s in-process measurements, for figures no command shows on its own.
//
//   CofferBench reconcile N   — N items changed on two devices (the password on one, the username
//                               on the other), merged on unlock: prints the KDF time and the time of
//                               the merge that follows it, in milliseconds, as one JSON object.
//   CofferBench relist N      — N items listed as the screen does on unlock, then listed again
//                               after another process changed one (the screen's reload): both
//                               times in milliseconds, as one JSON object.
//   CofferBench listing N     — a Kinto listing page of N item records read by the fetch step's
//                               one-pass reader, against JSONSerialization parsing the same page
//                               (what the reader replaced did that and more): best of 5, in ms.
//   CofferBench signatures N  — N shared-vault item versions signed by a member, checked as a
//                               first download's fetch checks them (`ItemSignature.Checker`):
//                               best of 5, in ms.
@main
enum CofferBench {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 2, ["reconcile", "relist", "listing", "signatures"].contains(arguments[0]),
              let count = Int(arguments[1]), count > 0 else {
            FileHandle.standardError.write(Data("usage: CofferBench reconcile|relist|listing|signatures N\n".utf8))
            exit(2)
        }
        if arguments[0] == "listing" { return print(try listing(count)) }
        if arguments[0] == "signatures" { return print(try signatures(count)) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("vault.db").path
        print(arguments[0] == "relist" ? try await relist(count, in: path) : try await reconcile(count, in: path))
    }

    static func listing(_ count: Int) throws -> String {
        let blob = String(repeating: "A", count: 700)
        let records = (0..<count).map {
            #"{"id":"item-\#($0)","last_modified":\#(1_700_000_000_000 + $0),"active":"active","origins":["0123456789abcdef"],"tags":[],"encrypted":"\#(blob)"}"#
        }
        let page = Data((#"{"data":["# + records.joined(separator: ",") + "]}").utf8)
        func best(_ work: () throws -> Int) rethrows -> Double {
            var fastest = Double.infinity
            for _ in 0..<5 {
                let start = DispatchTime.now()
                guard try work() == count else { return .nan }
                fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
            }
            return fastest
        }
        let reader = try best { try RecordListing.entries(of: page).count }
        let foundation = try best {
            ((try JSONSerialization.jsonObject(with: page) as? [String: Any])?["data"] as? [Any])?.count ?? 0
        }
        return #"{"records": \#(count), "bytes": \#(page.count), "reader_ms": \#(reader), "jsonserialization_ms": \#(foundation)}"#
    }

    static func signatures(_ count: Int) throws -> String {
        let member = PersonKeys()
        let vaultID = SharedVaultID.random()
        let entry = try RosterChain.creation(of: vaultID, name: "Ann", account: "ann", by: member,
                                             epochKey: SecureBuffer.random(count: EpochCommitment.keyLength))
        let state = try RosterChain.verify(entries: [entry], vaultID: vaultID).get()
        let blob = String(repeating: "A", count: 700)
        let records = try (0..<count).map { index in
            try ItemSignature.signed(ItemRecord(id: "item-\(index)", isActive: true, originHashes: ["0123456789abcdef"], tagHashes: [],
                                                encrypted: blob, lastModified: 0), as: member, in: vaultID)
        }
        var fastest = Double.infinity
        for _ in 0..<5 {
            let start = DispatchTime.now()
            let checker = ItemSignature.Checker(vaultID: vaultID, members: state.members)
            guard records.allSatisfy({ if case .member = checker.verdict($0) { true } else { false } }) else { return "{}" }
            fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
        }
        return #"{"records": \#(count), "verify_ms": \#(fastest)}"#
    }

    static func relist(_ count: Int, in path: String) async throws -> String {
        let (screen, items) = try await vaultWithItems(count, at: path)
        let firstStart = DispatchTime.now()
        _ = try await screen.listItems()
        let firstEnd = DispatchTime.now()
        let other = try Vault.open(at: path)
        try await other.unlock(passphrase: benchPassphrase)
        try await other.update(edited(items[count / 2]) { $0.title = "changed elsewhere" })
        let againStart = DispatchTime.now()
        let again = try await screen.listItems()
        let againEnd = DispatchTime.now()
        guard again.contains(where: { $0.item?.title == "changed elsewhere" }) else { throw BenchFailure("the change is missing") }
        func milliseconds(_ from: DispatchTime, _ to: DispatchTime) -> Double {
            Double(to.uptimeNanoseconds - from.uptimeNanoseconds) / 1e6
        }
        return #"{"items": \#(count), "list_ms": \#(milliseconds(firstStart, firstEnd)), "relist_ms": \#(milliseconds(againStart, againEnd))}"#
    }

    static func reconcile(_ count: Int, in path: String) async throws -> String {
        let (vault, items) = try await vaultWithItems(count, at: path)
        let passphrase = benchPassphrase
        // As after a first sync: every item is stable, with a server timestamp.
        try vault.database.write { db in
            try db.execute(sql: """
                INSERT INTO items (id, last_modified, active, origins, tags, encrypted)
                SELECT id, 1000 + key, 1, '', '', json_extract(record, '$.encrypted')
                FROM pending WHERE collection = 'items' AND source = 'local';
                DELETE FROM pending WHERE collection = 'items';
                """)
        }
        // The other device's change of each item, as fetch stores it…
        for item in items { _ = try await vault.update(edited(item) { $0.entry.password = "other device" }) }
        try vault.database.write { db in
            try db.execute(sql: """
                UPDATE pending SET source = 'remote', last_modified = last_modified + 1
                WHERE collection = 'items' AND source = 'local'
                """)
        }
        // …and this device's own change of each.
        for item in items { _ = try await vault.update(edited(item) { $0.entry.username = "this device" }) }
        await vault.lock()

        let unlockStart = DispatchTime.now()
        try await vault.unlock(passphrase: passphrase)
        let mergeStart = DispatchTime.now()
        let merged = try await vault.reconcileItems()
        let end = DispatchTime.now()
        guard merged.count == count else { throw BenchFailure("merged \(merged.count) of \(count)") }
        let merged0 = try await vault.item(items[0].id)
        guard merged0.entry.username == "this device", merged0.entry.password == "other device" else {
            throw BenchFailure("the merge lost a side")
        }
        func milliseconds(_ from: DispatchTime, _ to: DispatchTime) -> Double {
            Double(to.uptimeNanoseconds - from.uptimeNanoseconds) / 1e6
        }
        return #"{"conflicts": \#(count), "kdf_ms": \#(milliseconds(unlockStart, mergeStart)), "reconcile_ms": \#(milliseconds(mergeStart, end))}"#
    }

    static var benchPassphrase: SecureBuffer { SecureBuffer(copying: Array("bench passphrase".utf8)) }

    /// A new vault at `path` (Argon2id 64 MiB, t = 3) holding `count` items.
    static func vaultWithItems(_ count: Int, at path: String) async throws -> (Vault, [Item]) {
        let kdf = KDFParameters.fresh(memory: 64 * 1024 * 1024, iterations: 3)
        let vault = try Vault.create(at: path, passphrase: benchPassphrase, kdf: kdf)
        let items = (0..<count).map {
            Item(title: "Item \($0)", entry: Entry(username: "user\($0)", password: "pw\($0)"), created: .now())
        }
        try await vault.addAll(items)
        return (vault, items)
    }

    static func edited(_ item: Item, _ change: (inout Item) -> Void) -> Item {
        var copy = item
        change(&copy)
        return copy
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
