import CofferCore
import CofferTestSupport
import Foundation
import XCTest

/// `import --format keepassxc-xml` of what the real `keepassxc-cli export --format xml` writes: a
/// KDBX database made with keepassxc-cli (custom attributes, one protected, and TOTP come in
/// through `keepassxc-cli import`, which `add` cannot set), edited twice (history), given an
/// attachment, with an entry in the recycle bin (which makes keepassxc-cli save it as KDBX 4, whose
/// XML export names attachments without their bytes); read back with `show --json`. A KDBX 3.1
/// database's attachments come whole: `testAKDBX31DatabasesAttachmentsComeByteForByte`.
final class KeePassXMLImportTests: XCTestCase {
    /// What `keepassxc-cli import` reads to make the database: KeePass XML with ISO times.
    private let source = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <KeePassFile><Meta><Generator>test</Generator><DatabaseName>t</DatabaseName></Meta>
        <Root><Group><UUID>AAAAAAAAAAAAAAAAAAAAAA==</UUID><Name>Root</Name>
        <Group><UUID>AAAAAAAAAAAAAAAAAAAAAQ==</UUID><Name>Work</Name>
        <Group><UUID>AAAAAAAAAAAAAAAAAAAAAw==</UUID><Name>Tökyo</Name>
        <Entry><UUID>AAAAAAAAAAAAAAAAAAAAAg==</UUID>
        <Tags>blue;green</Tags>
        <Times><CreationTime>2020-01-02T03:04:05Z</CreationTime><LastModificationTime>2021-02-03T04:05:06Z</LastModificationTime></Times>
        <String><Key>Title</Key><Value>Café ☕</Value></String>
        <String><Key>UserName</Key><Value>ünï</Value></String>
        <String><Key>Password</Key><Value ProtectInMemory="True">first-pw</Value></String>
        <String><Key>URL</Key><Value>https://café.example</Value></String>
        <String><Key>Notes</Key><Value>line 1
        line 2, "q" &amp; &lt;b&gt;</Value></String>
        <String><Key>otp</Key><Value ProtectInMemory="True">otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&amp;period=30&amp;digits=6</Value></String>
        <String><Key>PIN</Key><Value ProtectInMemory="True">1234</Value></String>
        <String><Key>Recovery email</Key><Value>r@example.org</Value></String>
        </Entry></Group></Group></Group></Root></KeePassFile>
        """

    /// A database `keepassxc-cli import` made from `source` (password "pw").
    private func importedDatabase() throws -> KeePassXCScratch {
        let scratch = try KeePassXCScratch(prefix: "coffer-kpxml")
        try scratch.run(["import", "-p", try scratch.write("in.xml", Data(source.utf8)), scratch.database], "pw\npw\n")
        return scratch
    }

    func testTheRealCLIExportKeepsFieldsHistoryAndSkipsTheRecycleBin() throws {
        let scratch = try importedDatabase()
        defer { scratch.remove() }
        let (root, database) = (scratch.root, scratch.database)
        let keepassxc = { (arguments: [String], input: String) throws -> String in try scratch.run(arguments, input) }
        let entry = "Work/Tökyo/Café ☕"
        _ = try keepassxc(["edit", "-q", "-p", database, entry], "pw\nsecond-pw\n")
        _ = try keepassxc(["edit", "-q", "-u", "ünï 2", database, entry], "pw\n")
        let attachment = root.appendingPathComponent("scan.pdf")
        try Data("%PDF-1.4 not really".utf8).write(to: attachment)
        _ = try keepassxc(["attachment-import", "-q", database, entry, "scan.pdf", attachment.path], "pw\n")
        _ = try keepassxc(["add", "-q", "-u", "u", "-p", database, "日本"], "pw\nbare-pw\n")
        _ = try keepassxc(["add", "-q", database, "Thrown away"], "pw\n")
        _ = try keepassxc(["rm", "-q", database, "Thrown away"], "pw\n")
        let exported = try keepassxc(["export", "-q", "-f", "xml", database], "pw\n")
        XCTAssertTrue(exported.contains("<Name>Recycle Bin</Name>") && exported.contains("<Key>PIN</Key>"), exported)

        let vault = try TestVault.make()
        defer { vault.destroy() }
        let path = try vault.writeWorkFile("keepassxc.xml", exported)
        let result = try vault.ok(["import", "--format", "keepassxc-xml", path])
        XCTAssertEqual(result.err, "Skipped 1 entry in the recycle bin.\n"
                       + "1 attachment(s) are named without their bytes (keepassxc-cli leaves them out of a KDBX 4 database's XML): "
                       + "each item's notes name them; `keepassxc-cli attachment-export` saves one and `coffer attach` adds it.\n"
                       + "Imported 2 item(s) from \(path) (keepassxc-xml); skipped 0 duplicate(s).\n")
        let ids = try vault.list().compactMap { $0["id"] as? String }
        let items = Dictionary(uniqueKeysWithValues: try vault.showAll(ids, reveal: true).map { ($0["title"] as? String ?? "", $0) })
        XCTAssertEqual(Set(items.keys), ["Café ☕", "日本"])

        let cafe = try XCTUnwrap(items["Café ☕"])
        XCTAssertEqual(cafe["kind"] as? String, "login")
        XCTAssertEqual(cafe["username"] as? String, "ünï 2")
        XCTAssertEqual(cafe["password"] as? String, "second-pw")
        XCTAssertEqual(cafe["origins"] as? [String], ["https://café.example"])
        XCTAssertEqual(cafe["totp"] as? String, "otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&period=30&digits=6")
        XCTAssertEqual(cafe["tags"] as? [String], ["Work", "Tökyo", "blue", "green"])
        XCTAssertEqual(cafe["notes"] as? String, "line 1\nline 2, \"q\" & <b>\n\nAttachment not imported: scan.pdf "
                       + KeePassXCXML.missingData)
        XCTAssertNil(cafe["attachments"])
        let custom = try XCTUnwrap(cafe["custom"] as? [[String: Any]])
        XCTAssertEqual(custom.map { [$0["label"] as? String, $0["value"] as? String, $0["type"] as? String] },
                       [["PIN", "1234", "hidden"], ["Recovery email", "r@example.org", "text"]])
        XCTAssertEqual(cafe["created"] as? String, "2020-01-02T03:04:05.000Z")
        let modified = try XCTUnwrap(Timestamp(iso8601: try XCTUnwrap(cafe["modified"] as? String)))
        XCTAssertLessThan(abs(modified.date.timeIntervalSinceNow), 600, "the last edit's time")
        // Newest first: the attachment's note, the username edit, then the password edit.
        let patches = try XCTUnwrap(cafe["history"] as? [[String: Any]]).compactMap { $0["patch"] as? [String: Any] }
        XCTAssertEqual(patches.map { $0.keys.sorted() }, [["notes"], ["username"], ["password"]])
        XCTAssertEqual(patches[1]["username"] as? String, "ünï")
        XCTAssertEqual(patches[2]["password"] as? String, "first-pw")
        // Each step is dated when the newer version was saved: all three by the edits above.
        for step in try XCTUnwrap(cafe["history"] as? [[String: Any]]) {
            let created = try XCTUnwrap(Timestamp(iso8601: try XCTUnwrap(step["created"] as? String)))
            XCTAssertLessThan(abs(created.date.timeIntervalSinceNow), 600)
        }

        let japan = try XCTUnwrap(items["日本"])
        XCTAssertEqual(japan["password"] as? String, "bare-pw")
        XCTAssertEqual(japan["tags"] as? [String], [])
        XCTAssertNil(japan["custom"])

        // Without --reveal the hidden field and the history's secrets stay masked.
        let id = try XCTUnwrap(ids.first { items["Café ☕"]?["id"] as? String == $0 })
        let masked = try vault.show(id)
        XCTAssertEqual((masked["custom"] as? [[String: Any]])?.map { $0["value"] as? String }, [nil, "r@example.org"])
        XCTAssertFalse(try XCTUnwrap(String(data: JSONSerialization.data(withJSONObject: masked), encoding: .utf8)).contains("first-pw"))
        let code = try vault.ok(["totp", id])
        XCTAssertTrue(code.line.prefix(6).allSatisfy(\.isNumber) && code.line.dropFirst(6).first == " ", "a six-digit code: \(code.line)")

        // The same file again adds nothing.
        let again = try vault.ok(["import", "--format", "keepassxc-xml", path])
        XCTAssertEqual(again.err, "Skipped 1 entry in the recycle bin.\n"
                       + "1 attachment(s) are named without their bytes (keepassxc-cli leaves them out of a KDBX 4 database's XML): "
                       + "each item's notes name them; `keepassxc-cli attachment-export` saves one and `coffer attach` adds it.\n"
                       + "Imported 0 item(s) from \(path) (keepassxc-xml); skipped 2 duplicate(s).\n")
    }

    /// A database keepassxc-cli keeps as KDBX 3.1 (made by `import`, nothing deleted): its XML
    /// export holds each attachment gzipped, and the import keeps them byte for byte, one of them
    /// (9 MB of random bytes) larger than libxml2 takes in one text.
    func testAKDBX31DatabasesAttachmentsComeByteForByte() throws {
        let scratch = try importedDatabase()
        defer { scratch.remove() }
        let (root, database) = (scratch.root, scratch.database)
        let keepassxc = { (arguments: [String], input: String) throws -> String in try scratch.run(arguments, input) }
        let files: [(name: String, bytes: Data)] = [
            ("scan.pdf", Data("%PDF-1.4\0".utf8) + Data((0..<300_000).map { _ in UInt8.random(in: 0...255) })),
            ("big.bin", Data((0..<9_000_000).map { _ in UInt8.random(in: 0...255) })),
            ("empty.txt", Data()),
        ]
        for file in files {
            let path = root.appendingPathComponent(file.name)
            try file.bytes.write(to: path)
            _ = try keepassxc(["attachment-import", "-q", database, "Work/Tökyo/Café ☕", file.name, path.path], "pw\n")
        }
        let exported = try keepassxc(["export", "-q", "-f", "xml", database], "pw\n")
        XCTAssertTrue(exported.contains("<Binaries>"), "a KDBX 3.1 export holds the data")

        let vault = try TestVault.make()
        defer { vault.destroy() }
        let path = try vault.writeWorkFile("keepassxc.xml", exported)
        let result = try vault.ok(["import", "--format", "keepassxc-xml", path])
        XCTAssertEqual(result.err, "Imported 1 item(s) from \(path) (keepassxc-xml); skipped 0 duplicate(s).\n"
                       + "Kept 3 file(s) with their items.\n")
        let cafe = try vault.show("Café ☕", reveal: true)
        XCTAssertEqual(cafe["notes"] as? String, "line 1\nline 2, \"q\" & <b>")
        let listed = try XCTUnwrap(cafe["attachments"] as? [[String: Any]])
        XCTAssertEqual(Set(listed.compactMap { $0["name"] as? String }), Set(files.map(\.name)))
        XCTAssertEqual((cafe["custom"] as? [[String: Any]])?.map { $0["label"] as? String }, ["PIN", "Recovery email"])
        for file in files {
            let saved = root.appendingPathComponent("saved-" + file.name)
            _ = try vault.ok(["attachment", "Café ☕", file.name, "--output", saved.path])
            XCTAssertEqual(try Data(contentsOf: saved), file.bytes, "\(file.name), byte for byte")
        }
    }

    func testAHostileOrBrokenFileIsExit5WithOneSentenceAndStoresNothing() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        _ = try vault.add("existing")
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE KeePassFile [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <KeePassFile><Root><Group><Name>R</Name><Entry><String><Key>Title</Key><Value>&b;</Value></String></Entry></Group></Root></KeePassFile>
            """
        let cases: [(String, String, [String])] = [
            ("laughs.xml", laughs, ["laughs.xml has a document type or entity declaration"]),
            ("cut.xml", String(source.prefix(400)), ["cut.xml is not well-formed XML (line"]),
            ("export.csv", ImportFixtures.keepassxc, ["export.csv is not well-formed XML (line 1)"]),
        ]
        for (name, contents, mentions) in cases {
            let path = try vault.writeWorkFile(name, contents)
            let result = try vault.run(["import", "--format", "keepassxc-xml", path])
            assertError(result, 5, mentions: mentions)
            XCTAssertEqual(result.err.split(separator: "\n").count, 1, result.summary)
        }
        XCTAssertEqual(try vault.itemCount(), 1, "a refused import stored items")
    }
}
