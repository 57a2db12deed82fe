import Foundation
import XCTest
@testable import CofferCore
import CofferFuzzChecks
import CofferSync
import CofferTestSupport

/// The fuzz seed corpora (`Resources/fuzz/<target>/`) stay valid inputs: every file passes the
/// check its fuzz target runs, so `make fuzz` starts from inputs that exercise the parsers.
final class SeedCorpusTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The corpus files of `target`, sorted, with their bytes.
    static func corpus(_ target: String) throws -> [(name: String, data: Data)] {
        let directory = packageRoot.appendingPathComponent("Resources/fuzz/\(target)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        return try names.map { ($0, try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    /// Every file of the target's corpus passes the check its fuzz executable runs.
    private func assertCorpusPasses(_ target: FuzzTarget, file: StaticString = #filePath, line: UInt = #line) throws {
        let files = try Self.corpus(target.rawValue)
        XCTAssertGreaterThanOrEqual(files.count, 3, "\(target.rawValue) has too small a seed corpus", file: file, line: line)
        for (name, data) in files {
            XCTAssertNoThrow(try target.check(data), "\(target.rawValue)/\(name)", file: file, line: line)
        }
    }

    func testConfigCorpus() throws {
        try assertCorpusPasses(.config)
        // The corpus holds a file the reader takes whole, not only ones it refuses.
        let files = Dictionary(uniqueKeysWithValues: try Self.corpus("FuzzConfig").map { ($0.name, $0.data) })
        let document = try ConfigDocument.parse(Array(try XCTUnwrap(files["full.toml"])))
        XCTAssertNoThrow(try CofferConfig(document, home: "/home/a"))
    }

    func testRecordsCorpus() throws {
        try assertCorpusPasses(.records)
        // The corpus holds inputs each parser accepts, not only ones it refuses.
        let files = Dictionary(uniqueKeysWithValues: try Self.corpus("FuzzRecords").map { ($0.name, $0.data) })
        let item = try JSONDecoder().decode(ItemRecord.self, from: try XCTUnwrap(files["item-record.json"]))
        XCTAssertTrue(item.isActive)
        XCTAssertTrue(try JSONDecoder().decode(ItemRecord.self, from: try XCTUnwrap(files["item-tombstone.json"])).isDeleted)
        let keystore = try JSONDecoder().decode(KeystoreRecord.self, from: try XCTUnwrap(files["keystore-record.json"]))
        XCTAssertNoThrow(try keystore.kdf.checkStrength())
        let ring = try XCTUnwrap(files["keyring.bin"]).withUnsafeBytes { try KeyRing.parse($0) }
        XCTAssertEqual(ring.count, 2)
        XCTAssertNotNil(Timestamp(iso8601: String(decoding: try XCTUnwrap(files["timestamp.txt"]), as: UTF8.self)))
    }

    func testEnvelopeCorpus() throws {
        try assertCorpusPasses(.envelope)
        let sealed = try XCTUnwrap(try Self.corpus("FuzzEnvelope").first { $0.name == "sealed-item.bin" }).data
        let plaintext = try Envelope.open(sealed, key: FuzzChecks.testKey, collection: "items", id: "fuzz")
        XCTAssertEqual(String(decoding: plaintext, as: UTF8.self), #"{"title":"Example"}"#)
    }

    func testItemJSONCorpus() throws {
        try assertCorpusPasses(.itemJSON)
        for (name, data) in try Self.corpus("FuzzItemJSON") {
            let item = try ItemCodec.decode(data)
            XCTAssertEqual(ItemValidation.problems(in: item), [], name)
        }
    }

    func testImportCorpus() throws {
        try assertCorpusPasses(.importFile)
        let export = try XCTUnwrap(try Self.corpus("FuzzImport").first { $0.name == "export.json" }).data
        let items = try ItemExchange.parseExport(export, now: FuzzChecks.importNow)
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(items.last?.history.count, 2)
    }

    /// The Kinto corpus, also through the built `FuzzKintoResponses` replayer: that covers the
    /// replay mode every fuzz executable shares (`FuzzEntry`).
    func testForeignImportCorpus() throws {
        try assertCorpusPasses(.foreignImport)
        // The KeePass XML seed is one the parser reads, not one it refuses.
        let xml = try XCTUnwrap(try Self.corpus("FuzzForeignImport").first { $0.name == "keepassxc.xml" }).data
        XCTAssertEqual(FuzzChecks.foreignImportFormats[Int(try XCTUnwrap(xml.first))], "keepassxc-xml")
        let export = try KeePassXCXML.read(Data(xml.dropFirst()), file: "seed")
        XCTAssertEqual(export.recycled, 1)
        let items = try ImportDraft.items(export.drafts, file: "seed", now: FuzzChecks.importNow)
        XCTAssertEqual(items.map(\.title), ["Café"])
        XCTAssertEqual(items.first?.history.count, 1)
        // The KDBX seeds: a keepassxc-cli database's header, and an inner header and XML read whole.
        for (name, format) in [("kdbx-header.kdbx", "kdbx-header"), ("kdbx-inner.bin", "kdbx-inner"), ("kdbx-inner-gzip.bin", "kdbx-inner-gzip")] {
            let seed = try XCTUnwrap(try Self.corpus("FuzzForeignImport").first { $0.name == name }).data
            XCTAssertEqual(FuzzChecks.foreignImportFormats[Int(try XCTUnwrap(seed.first))], format)
        }
        let inner = try XCTUnwrap(try Self.corpus("FuzzForeignImport").first { $0.name == "kdbx-inner.bin" }).data
        let kdbx = try KeePassKDBX.readWrapped(inner: Array(inner.dropFirst()), isCompressed: true)
        XCTAssertEqual(kdbx.drafts.map(\.title), ["Mail"])
        XCTAssertEqual(kdbx.drafts.first?.files.map(\.name), ["a.txt"])
        XCTAssertEqual(try kdbx.drafts.first?.files.first?.bytes(), Data("hello file".utf8))
        XCTAssertEqual(kdbx.drafts.first?.totp, "otpauth://totp/KeePassXC?secret=JBSWY3DPEHPK3PXP&period=30&digits=6")
    }

    func testDeviceMessagesCorpus() throws {
        try assertCorpusPasses(.deviceMessages)
        // Genuine inputs, not only refused ones: a record whose box verifies, messages that open.
        let files = Dictionary(uniqueKeysWithValues: try Self.corpus("FuzzDeviceMessages").map { ($0.name, $0.data.dropFirst()) })
        let record = try XCTUnwrap(DeviceRecord.decode(Data(try XCTUnwrap(files["device-record.json"]))))
        XCTAssertEqual(DeviceSealing.verifiedName(of: record, vaultKey: FuzzChecks.testKey), "sender")
        let forged = try XCTUnwrap(DeviceRecord.decode(Data(try XCTUnwrap(files["device-record-forged.json"]))))
        XCTAssertNil(DeviceSealing.verifiedName(of: forged, vaultKey: FuzzChecks.testKey))
        for name in ["message-lock.json", "message-credentials.json"] {
            XCTAssertEqual(MessageRecord.decode(Data(try XCTUnwrap(files[name])))?.id, "message-fuzz", name)
        }
    }

    func testInvitationsCorpus() throws {
        try assertCorpusPasses(.invitations)
        let code = try XCTUnwrap(try Self.corpus("FuzzInvitations").first { $0.name == "code.txt" }).data.dropFirst()
        XCTAssertEqual(try InvitationCode(parsing: String(decoding: code, as: UTF8.self)).description, "K7Q4-M2XP-9R4")
        // Each seed begins with the digit of the check its name says, and the digit picks that check.
        let checks = ["code": 0, "leftover": 1, "offer": 2, "claim": 3, "answer": 4, "box": 5, "key": 6, "share": 7]
        XCTAssertEqual(FuzzChecks.invitationChecks, 8)
        XCTAssertEqual(UInt8(ascii: "0") % FuzzChecks.invitationChecks, 0, "a digit seed picks the check of its digit")
        let files = try Self.corpus("FuzzInvitations")
        for (name, data) in files {
            let check = try XCTUnwrap(checks.first { name.hasPrefix($0.key) }?.value, name)
            XCTAssertEqual(data.first, UInt8(ascii: "0") + UInt8(check), name)
        }
        // The share seeds hold a card and grants the parsers read, and one they refuse.
        let share = Dictionary(uniqueKeysWithValues: files.map { ($0.name, Data($0.data.dropFirst())) })
        XCTAssertEqual(try ShareInvitation.person(fromCard: try XCTUnwrap(share["share-card.json"])).name, "Ann")
        XCTAssertEqual(try ShareInvitation.Grant(json: try XCTUnwrap(share["share-grant.json"])).name, "family")
        XCTAssertEqual(try ShareInvitation.Grant(json: try XCTUnwrap(share["share-grant-last.json"])).head.position, 9999)
        XCTAssertThrowsError(try ShareInvitation.Grant(json: try XCTUnwrap(share["share-grant-dotdot.json"])))
    }

    func testSSHAgentCorpus() throws {
        try assertCorpusPasses(.sshAgent)
        // Genuine inputs: key files ssh-keygen wrote, and the key ADD_IDENTITY carries reads.
        let files = Dictionary(uniqueKeysWithValues: try Self.corpus("FuzzSSHAgent").map { ($0.name, Data($0.data.dropFirst())) })
        for (name, type) in [("keyfile-ed25519.txt", SSHKeyType.ed25519), ("keyfile-ecdsa.txt", .ecdsa)] {
            let key = try OpenSSHKeyFile.read(String(decoding: try XCTUnwrap(files[name]), as: UTF8.self))
            XCTAssertEqual(key.type, type, name)
            XCTAssertEqual(key.comment, "seed-\(type.rawValue)", name)
        }
        var reader = SSHWireReader(Data(try XCTUnwrap(files["add-ed25519.bin"]).dropFirst()))
        XCTAssertEqual(try SSHKey.read(from: &reader).comment, "seed-ed25519")
    }

    func testRosterCorpus() throws {
        try assertCorpusPasses(.roster)
        // Genuine inputs, not only refused ones: entries that decode, chains that verify.
        let files = Dictionary(uniqueKeysWithValues: try Self.corpus("FuzzRoster").map { ($0.name, Data($0.data.dropFirst())) })
        let create = try RosterEntry(encoded: try XCTUnwrap(files["entry-create.bin"]))
        guard case .create(let ann) = create.change else { return XCTFail("entry-create.bin holds \(create.change)") }
        XCTAssertEqual(ann.name, "Ann")
        XCTAssertThrowsError(try RosterEntry(encoded: try XCTUnwrap(files["entry-unknown-change.bin"]))) {
            XCTAssertEqual($0 as? RosterEntry.Malformed, .unknownChange(9))
        }
        XCTAssertEqual(try RosterRecord(json: try XCTUnwrap(files["record-served.json"])).entry.sequence, 2)

        let genuine = try FuzzChecks.rosterChain(script: try XCTUnwrap(files["chain-genuine.bin"]))
        let state = try RosterChain.verify(entries: genuine.entries, vaultID: genuine.vault).get()
        XCTAssertEqual(state.members.count, 2)
        XCTAssertEqual(state.epoch, 4)
        XCTAssertNotNil(state.recoveryKey)
        // The raced removal is accepted at position 4, and the rotation after it pays what it owes.
        let raced = try FuzzChecks.rosterChain(script: try XCTUnwrap(files["chain-raced.bin"]))
        XCTAssertEqual(raced.entries.map(\.sequence), [0, 1, 2, 3, 3, 5])
        let afterRace = try RosterChain.verify(entries: Array(raced.entries.prefix(5)), vaultID: raced.vault).get()
        XCTAssertEqual(afterRace.members.count, 1)
        XCTAssertTrue(afterRace.needsRotation)
        XCTAssertFalse(try RosterChain.verify(entries: raced.entries, vaultID: raced.vault).get().needsRotation)
        let forged = try FuzzChecks.rosterChain(script: try XCTUnwrap(files["chain-forged.bin"]))
        guard case .failure(let problem) = RosterChain.verify(entries: forged.entries, vaultID: forged.vault) else {
            return XCTFail("the forged chain was accepted")
        }
        XCTAssertEqual(problem, RosterProblem(position: 2, reason: .wrongEpoch(expected: 2, found: 3)))
    }

    func testKintoResponsesCorpus() throws {
        try assertCorpusPasses(.kintoResponses)
        let directory = Self.packageRoot.appendingPathComponent("Resources/fuzz/FuzzKintoResponses").path
        let result = try FuzzReplayer.run("FuzzKintoResponses", [directory])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("0 findings"), result.output)
    }
}

/// Runs a fuzz target's replayer: the executable built next to this test bundle.
enum FuzzReplayer {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    static func executable(_ name: String) throws -> String {
        var directories = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        if let override = ProcessInfo.processInfo.environment["COFFER_FUZZ_BIN_DIR"] {
            directories.insert(URL(fileURLWithPath: override), at: 0)
        }
        for directory in directories {
            for candidate in [directory, directory.deletingLastPathComponent()] {
                let path = candidate.appendingPathComponent(name).path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        throw Missing(description: "\(name) is not built next to the tests (swift build --build-tests builds it; "
            + "or set COFFER_FUZZ_BIN_DIR); looked in \(directories.map(\.path))")
    }

    static func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try ToolProcess.run(try executable(name), arguments)
    }
}
