import CofferCore
import CofferTestSupport
import Foundation
import XCTest

/// `import --format firefox|chrome|keepassxc|1password|bitwarden|pass` and `export --format csv`
/// through the real binary: every field read back with `show --json --reveal`, duplicates
/// skipped, `--dry-run`, bad files refused with nothing stored, beside another process.
final class ForeignImportTests: XCTestCase {
    /// Imports `text` as `format` into a new vault; the vault and every item's `show --json --reveal` by title.
    private func imported(_ format: String, _ name: String, _ text: String, count: Int,
                          file: StaticString = #filePath, line: UInt = #line) throws -> (TestVault, [String: [String: Any]]) {
        let vault = try TestVault.make()
        let path = try vault.writeWorkFile(name, text)
        let result = try vault.ok(["import", "--format", format, path], file: file, line: line)
        XCTAssertEqual(result.out, "", file: file, line: line)
        XCTAssertEqual(result.err, "Imported \(count) item(s) from \(path) (\(format)); skipped 0 duplicate(s).\n", file: file, line: line)
        XCTAssertEqual(try vault.itemCount(), count, file: file, line: line)
        let ids = try vault.list().compactMap { $0["id"] as? String }
        var byTitle: [String: [String: Any]] = [:]
        for shown in try vault.showAll(ids, reveal: true) { byTitle[shown["title"] as? String ?? ""] = shown }
        return (vault, byTitle)
    }

    func testFirefoxImportKeepsEveryField() throws {
        let (vault, items) = try imported("firefox", "logins.csv", ImportFixtures.firefox, count: 2)
        defer { vault.destroy() }
        let cafe = try XCTUnwrap(items["café.example"])
        XCTAssertEqual(cafe["origins"] as? [String], ["https://café.example"])
        XCTAssertEqual(cafe["username"] as? String, "ünï")
        XCTAssertEqual(cafe["password"] as? String, "pa,ss\"word")
        XCTAssertEqual(cafe["created"] as? String, "2020-09-13T12:26:40.000Z")
        XCTAssertEqual(cafe["modified"] as? String, "2022-04-15T05:20:00.000Z")
        XCTAssertEqual(cafe["last_used"] as? String, "2023-11-14T22:13:20.000Z")
        let japan = try XCTUnwrap(items["日本.example"])
        XCTAssertEqual(japan["password"] as? String, "multi\nline password")
        XCTAssertEqual(japan["notes"] as? String, "HTTP realm: Realm 日本\nForm action origin: https://login.日本.example")
    }

    func testChromeImportKeepsEveryField() throws {
        let (vault, items) = try imported("chrome", "chrome.csv", ImportFixtures.chrome, count: 2)
        defer { vault.destroy() }
        let cafe = try XCTUnwrap(items["café.example"])
        XCTAssertEqual(cafe["origins"] as? [String], ["https://café.example/login"])
        XCTAssertEqual(cafe["password"] as? String, "p,w\"1")
        XCTAssertEqual(cafe["notes"] as? String, "line one\nline two, with a comma")
        XCTAssertEqual(items["日本"]?["origins"] as? [String], ["https://日本.example/"])
    }

    func testOnePasswordImportKeepsEveryField() throws {
        let (vault, items) = try imported("1password", "1p.csv", ImportFixtures.onePassword, count: 2)
        defer { vault.destroy() }
        let cafe = try XCTUnwrap(items["Café, ☕"])
        XCTAssertEqual(cafe["tags"] as? [String], ["Work", "東京"])
        XCTAssertEqual(cafe["totp"] as? String, ImportFixtures.totpURI)
        XCTAssertEqual(cafe["notes"] as? String, "note\ntwo\n\nFavorite: yes")
        XCTAssertEqual(items["日本"]?["disabled"] as? Bool, true)
    }

    func testBitwardenImportKeepsEveryItemType() throws {
        let (vault, items) = try imported("bitwarden", "bw.json", ImportFixtures.bitwarden, count: 4)
        defer { vault.destroy() }
        let login = try XCTUnwrap(items["Café ☕"])
        XCTAssertEqual(login["tags"] as? [String], ["Work", "Servers"])
        XCTAssertEqual(login["origins"] as? [String], ["https://café.example", "https://login.café.example"])
        XCTAssertEqual(login["password"] as? String, "new-pw")
        XCTAssertEqual(login["totp"] as? String, ImportFixtures.totpURI)
        XCTAssertEqual(login["created"] as? String, "2022-01-01T00:00:00.000Z")
        XCTAssertEqual(login["modified"] as? String, "2024-06-01T12:00:00.123Z")
        let history = try XCTUnwrap(login["history"] as? [[String: Any]])
        XCTAssertEqual(history.compactMap { ($0["patch"] as? [String: Any])?["password"] as? String }, ["old-pw", "older-pw"])
        XCTAssertEqual(login["kind"] as? String, "login")
        XCTAssertEqual((login["custom"] as? [[String: Any]])?.map { [$0["label"] as? String, $0["value"] as? String, $0["type"] as? String] },
                       [["PIN", "1234", "hidden"], ["colour", "blue", "text"]])
        let card = try XCTUnwrap(items["Visa"])
        XCTAssertEqual(card["kind"] as? String, "card")
        XCTAssertEqual(card["fields"] as? [String: String], ["cardholder": "Zoé Doe", "number": "4111111111111111", "expiry_month": "12",
                                                           "expiry_year": "2030", "code": "123"])
        XCTAssertEqual((card["custom"] as? [[String: Any]])?.compactMap { $0["label"] as? String }, ["Brand"])
        let identity = try XCTUnwrap(items["Me"])
        XCTAssertEqual(identity["kind"] as? String, "identity")
        XCTAssertEqual(identity["fields"] as? [String: String], ["first_name": "Zoé", "last_name": "Doe", "email": "zoe@example.org"])
        XCTAssertEqual(items["日本 note"]?["kind"] as? String, "note")
        XCTAssertEqual(items["日本 note"]?["notes"] as? String, "secret note")
    }

    func testKeePassXCImportOfTheRealCLIExport() throws {
        let scratch = try KeePassXCScratch(prefix: "coffer-kpxc")
        defer { scratch.remove() }
        let (root, database) = (scratch.root, scratch.database)
        let keepassxc = { (arguments: [String], input: String) throws -> String in try scratch.run(arguments, input) }
        _ = try keepassxc(["db-create", "-q", "-p", "-t", "100", database], "pw\npw\n")
        _ = try keepassxc(["mkdir", "-q", database, "Work"], "pw\n")
        _ = try keepassxc(["mkdir", "-q", database, "Work/Servers"], "pw\n")
        _ = try keepassxc(["add", "-q", "-u", "ünï", "--url", "https://café.example", "--notes", "line 1\nline 2, \"q\"",
                           "-p", database, "Work/Servers/Café ☕"], "pw\npa\"ss,word ☕\n")
        _ = try keepassxc(["add", "-q", "-p", database, "日本"], "pw\n\n")
        let csv = try keepassxc(["export", "-q", "-f", "csv", database], "pw\n")
        XCTAssertTrue(csv.hasPrefix("\"Group\",\"Title\",\"Username\",\"Password\",\"URL\",\"Notes\",\"TOTP\",\"Icon\",\"Last Modified\",\"Created\""), csv)

        let (vault, items) = try imported("keepassxc", "keepassxc.csv", csv, count: 2)
        defer { vault.destroy() }
        let cafe = try XCTUnwrap(items["Café ☕"])
        XCTAssertEqual(cafe["tags"] as? [String], ["Work", "Servers"])
        XCTAssertEqual(cafe["username"] as? String, "ünï")
        XCTAssertEqual(cafe["password"] as? String, "pa\"ss,word ☕")
        XCTAssertEqual(cafe["origins"] as? [String], ["https://café.example"])
        XCTAssertEqual(cafe["notes"] as? String, "line 1\nline 2, \"q\"")
        let created = try XCTUnwrap(cafe["created"] as? String)
        XCTAssertLessThan(abs(Timestamp(iso8601: created)!.date.timeIntervalSinceNow), 600, "KeePassXC's creation time is kept")
        XCTAssertEqual(items["日本"]?["tags"] as? [String], [])

        // TOTP and fixed times: keepassxc-cli cannot set them with `add`, so this database is made
        // by `keepassxc-cli import` from KeePass XML (an "otp" string, the entry's Times).
        let xml = root.appendingPathComponent("in.xml").path
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <KeePassFile><Meta><Generator>test</Generator><DatabaseName>t</DatabaseName></Meta>
            <Root><Group><UUID>AAAAAAAAAAAAAAAAAAAAAA==</UUID><Name>Root</Name>
            <Group><UUID>AAAAAAAAAAAAAAAAAAAAAQ==</UUID><Name>Tökyo</Name>
            <Entry><UUID>AAAAAAAAAAAAAAAAAAAAAg==</UUID>
            <Times><CreationTime>2020-01-02T03:04:05Z</CreationTime><LastModificationTime>2021-02-03T04:05:06Z</LastModificationTime></Times>
            <String><Key>Title</Key><Value>With TOTP</Value></String>
            <String><Key>UserName</Key><Value>u</Value></String>
            <String><Key>Password</Key><Value>p</Value></String>
            <String><Key>otp</Key><Value>otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&amp;period=30&amp;digits=6</Value></String>
            </Entry></Group></Group></Root></KeePassFile>
            """.utf8).write(to: URL(fileURLWithPath: xml))
        let withTOTP = root.appendingPathComponent("totp.kdbx").path
        _ = try keepassxc(["import", "-p", xml, withTOTP], "pw\npw\n")
        let totpCSV = try keepassxc(["export", "-q", "-f", "csv", withTOTP], "pw\n")
        let path = try vault.writeWorkFile("totp.csv", totpCSV)
        _ = try vault.ok(["import", "--format", "keepassxc", path])
        let id = try XCTUnwrap(try vault.search("With TOTP").first?["id"] as? String)
        let shown = try vault.show(id, reveal: true)
        let totp = try XCTUnwrap(shown["totp"] as? String)
        XCTAssertTrue(totp.hasPrefix("otpauth://totp/") && totp.contains("secret=JBSWY3DPEHPK3PXP"), totp)
        XCTAssertTrue(totpCSV.contains(totp), "the TOTP column is kept as KeePassXC wrote it")
        XCTAssertEqual(shown["tags"] as? [String], ["Tökyo"])
        XCTAssertEqual(shown["created"] as? String, "2020-01-02T03:04:05.000Z")
        XCTAssertEqual(shown["modified"] as? String, "2021-02-03T04:05:06.000Z")
        XCTAssertEqual(shown["notes"] as? String, "")
        let code = try vault.ok(["totp", id])
        XCTAssertTrue(code.line.prefix(7).allSatisfy(\.isNumber) == false && code.line.prefix(6).allSatisfy(\.isNumber),
                      "the imported TOTP gives six-digit codes: \(code.line)")
    }

    /// A scratch GnuPG home and password store made by the real `gpg` and `pass`; `tool` runs
    /// either with both set; `remove` kills the agent and removes everything.
    private struct PassFixture {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-pass-\(UUID().uuidString)")
        var gnupg: URL { root.appendingPathComponent("gnupg") }
        var store: URL { root.appendingPathComponent("store") }
        var environment: [String: String] { ["GNUPGHOME": gnupg.path, "PASSWORD_STORE_DIR": store.path] }

        init() throws {
            try FileManager.default.createDirectory(at: gnupg, withIntermediateDirectories: true)
            XCTAssertEqual(chmod(gnupg.path, 0o700), 0)
            try tool("/usr/bin/gpg", ["--batch", "--passphrase", "", "--quick-gen-key", "coffer-test@example.org", "default", "default", "never"])
            try tool("/usr/bin/pass", ["init", "coffer-test@example.org"])
        }

        func tool(_ path: String, _ arguments: [String], _ input: String = "") throws {
            let result = try ExternalTool.run(path, arguments, stdin: Data(input.utf8), environment: environment)
            XCTAssertEqual(result.status, 0, "\(path) \(arguments): \(result.errorText)")
        }

        func remove() {
            _ = try? ExternalTool.run("/usr/bin/gpgconf", ["--kill", "all"], environment: ["GNUPGHOME": gnupg.path])
            try? FileManager.default.removeItem(at: root)
        }
    }

    func testPassStoreMadeByTheRealPass() throws {
        let fixture = try PassFixture()
        defer { fixture.remove() }
        let (root, store, environment, tool) = (fixture.root, fixture.store, fixture.environment, fixture.tool)
        try tool("/usr/bin/pass", ["insert", "-m", "web/shop/café"],
                 "s3cr3t ☕\nlogin: ünï\nurl: https://café.example\n\(ImportFixtures.totpURI)\nfree text, 日本\n")
        try tool("/usr/bin/pass", ["insert", "-m", "bank"], "only-a-password\n")

        let vault = try TestVault.make()
        defer { vault.destroy() }
        let result = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile,
                                            "import", "--format", "pass", store.path], home: vault.root, environment: environment)
        assertOK(result)
        XCTAssertEqual(result.err, "Imported 2 item(s) from \(store.path) (pass); skipped 0 duplicate(s).\n")
        let ids = try vault.list().compactMap { $0["id"] as? String }
        let items = Dictionary(uniqueKeysWithValues: try vault.showAll(ids, reveal: true).map { ($0["title"] as? String ?? "", $0) })
        let cafe = try XCTUnwrap(items["web/shop/café"])
        XCTAssertEqual(cafe["password"] as? String, "s3cr3t ☕")
        XCTAssertEqual(cafe["username"] as? String, "ünï")
        XCTAssertEqual(cafe["origins"] as? [String], ["https://café.example"])
        XCTAssertEqual(cafe["totp"] as? String, ImportFixtures.totpURI)
        XCTAssertEqual(cafe["tags"] as? [String], ["web", "shop"])
        XCTAssertEqual(cafe["notes"] as? String, "free text, 日本")
        XCTAssertEqual(items["bank"]?["password"] as? String, "only-a-password")

        // Without the key (another GNUPGHOME), gpg cannot decrypt: exit 5, nothing stored.
        let empty = root.appendingPathComponent("empty-gnupg")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(empty.path, 0o700), 0)
        let refused = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile,
                                             "import", "--format", "pass", store.path], home: vault.root,
                                            environment: ["GNUPGHOME": empty.path])
        assertError(refused, 5, mentions: ["gpg cannot decrypt"])
        XCTAssertEqual(try vault.itemCount(), 2)
    }

    /// An entry that is a symbolic link out of the store (to a file the same key opens) is skipped
    /// and named; the entries inside are imported.
    func testPassImportStaysInsideTheStore() throws {
        let fixture = try PassFixture()
        defer { fixture.remove() }
        try fixture.tool("/usr/bin/pass", ["insert", "-m", "inside"], "in-store-password\n")
        try fixture.tool("/usr/bin/pass", ["insert", "-m", "elsewhere"], "outside-password\n")
        let outside = fixture.root.appendingPathComponent("outside.gpg").path
        try FileManager.default.moveItem(atPath: fixture.store.appendingPathComponent("elsewhere.gpg").path, toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: fixture.store.appendingPathComponent("linked.gpg").path,
                                                   withDestinationPath: outside)
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let result = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "import",
                                            "--format", "pass", fixture.store.path], home: vault.root,
                                           environment: fixture.environment)
        assertOK(result)
        XCTAssertTrue(result.err.contains("Skipped 1 entry leading out of the store (symbolic links): linked.gpg."), result.summary)
        XCTAssertEqual(try vault.list().compactMap { $0["title"] as? String }, ["inside"])
    }

    func testDuplicatesAreSkippedAndDryRunImportsNothing() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let firefox = try vault.writeWorkFile("logins.csv", ImportFixtures.firefox)
        _ = try vault.ok(["import", "--format", "firefox", firefox])
        // A file with one new row and one repeated row.
        let lines = ImportFixtures.chrome.split(separator: "\n", omittingEmptySubsequences: false)
        let twice = try vault.writeWorkFile("twice.csv", ([lines[0], "a,https://a.example,u,p,", "a,https://a.example,u,p,"]).joined(separator: "\n"))
        let before = try vault.vaultContents()

        let dryRun = try vault.ok(["import", "--format", "firefox", "--dry-run", firefox])
        XCTAssertEqual(dryRun.out, "Would import 0 item(s) from \(firefox) (firefox):\nWould skip 2 duplicate(s):\n"
                       + "  café.example (already in the vault)\n  日本.example (already in the vault)\n")
        let dryTwice = try vault.ok(["import", "--format", "chrome", "--dry-run", twice])
        XCTAssertEqual(dryTwice.out, "Would import 1 item(s) from \(twice) (chrome):\n  a\nWould skip 1 duplicate(s):\n  a (twice in the file)\n")
        XCTAssertEqual(try vault.vaultContents(), before, "a dry run changed the vault")

        let again = try vault.ok(["import", "--format", "firefox", firefox])
        XCTAssertEqual(again.err, "Imported 0 item(s) from \(firefox) (firefox); skipped 2 duplicate(s).\n")
        _ = try vault.ok(["import", "--format", "chrome", twice])
        XCTAssertEqual(try vault.itemCount(), 3)
    }

    func testJSONDryRunListsTheItemsAndStoresNothing() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let file = try vault.writeWorkFile("items.json", #"[{"title": "Café"}, {"title": "日本", "password": "p"}]"#)
        let before = try vault.vaultContents()
        let result = try vault.ok(["import", "--format", "json", "--dry-run", file])
        XCTAssertEqual(result.out, "Would import 2 item(s) from \(file) (json):\n  Café\n  日本\nWould skip 0 duplicate(s):\n")
        XCTAssertEqual(try vault.vaultContents(), before)
        XCTAssertEqual(try vault.itemCount(), 0)
    }

    func testMalformedFilesAreExit5AndStoreNothing() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        _ = try vault.add("existing")
        let header = "name,url,username,password,note\n"
        var longLine = Data((header + "x,https://x.example,u,").utf8)
        longLine.append(Data(repeating: UInt8(ascii: "p"), count: 10 * 1_048_576))
        var badUTF8 = Data((header + "ok,https://ok.example,u,p,\nbad,https://b.example,u,").utf8)
        badUTF8.append(contentsOf: [0xC3, 0x28, 0x0A])
        let cases: [(String, String, Data, [String])] = [
            ("chrome", "truncated.csv", Data((header + "a,https://a.example,u,p,\nb,https://b.example,u,\"cut").utf8),
             ["truncated.csv line 3", "truncated"]),
            ("chrome", "short-row.csv", Data((header + "a,https://a.example,u,p,\nb,https://b.example\n").utf8),
             ["short-row.csv line 3: 2 field(s), the header has 5"]),
            ("firefox", "wrong-header.csv", Data((header + "a,https://a.example,u,p,\n").utf8),
             ["wrong-header.csv line 1", "\"httpRealm\"", "Firefox"]),
            ("chrome", "bad-utf8.csv", badUTF8, ["bad-utf8.csv line 3", "UTF-8"]),
            ("chrome", "long-line.csv", longLine, ["long-line.csv line 2", "1 MiB"]),
            ("bitwarden", "wrong-shape.json", Data(#"{"folders": [], "items": [{"type": 1, "name": "ok"}, {"type": 1, "login": {}}]}"#.utf8),
             ["wrong-shape.json item 2", "\"name\""]),
            ("bitwarden", "array.json", Data("[]".utf8), ["array.json", "not a Bitwarden export"]),
            ("keepassxc", "empty.csv", Data(), ["empty.csv", "no header"]),
        ]
        for (format, name, contents, mentions) in cases {
            let path = try vault.writeWorkFile(name, contents)
            let result = try vault.run(["import", "--format", format, path])
            assertError(result, 5, mentions: mentions)
        }
        XCTAssertEqual(try vault.itemCount(), 1, "a refused import stored items")
    }

    /// Progress every 1,000 records on a terminal's stderr (through `script`, which gives the
    /// command a pseudo-terminal); none when stderr is a file (every other test checks its stderr whole).
    func testProgressOnlyOnATerminal() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        var text = "name,url,username,password,note\n"
        for index in 0..<2_500 { text += "site \(index),https://s\(index).example,u\(index),\"p,\(index)\",\n" }
        let path = try vault.writeWorkFile("big.csv", text)
        let binary = try CofferBinary.require()
        let command = [binary, "--vault", vault.path, "--passphrase-file", vault.passphraseFile, "import", "--format", "chrome", path]
        let result = try ExternalTool.run("/usr/bin/script", ["-qec", command.joined(separator: " "), "/dev/null"],
                                          environment: ["HOME": vault.root.path, "XDG_RUNTIME_DIR": vault.root.path])
        XCTAssertEqual(result.status, 0, result.outputText + result.errorText)
        let shown = result.outputText.replacingOccurrences(of: "\r\n", with: "\n")
        XCTAssertTrue(shown.contains("\rRead 1000 records…\rRead 2000 records…\rRead 2500 records.\n"), shown)
        XCTAssertTrue(shown.contains("Imported 2500 item(s)"), shown)
        XCTAssertEqual(try vault.itemCount(), 2_500)
    }

    func testImportBesideAnotherAdd() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let bitwarden = try vault.writeWorkFile("bw.json", ImportFixtures.bitwarden)
        let results = try vault.okAll([["import", "--format", "bitwarden", bitwarden], ["add", "--title", "beside", "--password", "b"]])
        XCTAssertEqual(results[0].err, "Imported 4 item(s) from \(bitwarden) (bitwarden); skipped 0 duplicate(s).\n")
        assertItemID(results[1].line)
        XCTAssertEqual(try vault.itemCount(), 5)
        XCTAssertEqual(Set(try vault.list().compactMap { $0["title"] as? String }), ["Café ☕", "日本 note", "Visa", "Me", "beside"])
    }

    func testImportThroughTheUnlockedAgent() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        _ = try vault.ok(["unlock"])
        defer { _ = try? vault.run(["lock"], unlock: false) }
        let chrome = try vault.writeWorkFile("chrome.csv", ImportFixtures.chrome)
        let result = try vault.run(["import", "--format", "chrome", chrome], unlock: false)
        assertOK(result)
        XCTAssertEqual(try vault.itemCount(), 2)
    }

    func testExportCSVIsA0600FileThatReadsBack() throws {
        let (vault, _) = try imported("bitwarden", "bw.json", ImportFixtures.bitwarden, count: 4)
        defer { vault.destroy() }
        let path = vault.work.appendingPathComponent("export.csv").path
        let result = try vault.ok(["export", "--format", "csv", path])
        XCTAssertEqual(result.out, "")
        XCTAssertEqual(try permissions(path), 0o600)
        let table = try CSVTable(try Data(contentsOf: URL(fileURLWithPath: path)), file: "export.csv")
        XCTAssertEqual(table.header, ["title", "username", "password", "url", "origins", "tags", "notes", "totp", "created", "modified",
                                      "kind", "fields"])
        XCTAssertEqual(table.rows.map { $0.values[0] }, ["Café ☕", "Me", "Visa", "日本 note"], "sorted by title")
        let login = table.rows[0].values
        XCTAssertEqual(Array(login[1...5]), ["ünï", "new-pw", "https://café.example", "https://café.example https://login.café.example",
                                             "Work, Servers"])
        XCTAssertEqual(login[6], "login note, with \"quotes\"\nand a second line\n\nFavorite: yes\n"
                       + "URI match for https://login.café.example: 3")
        XCTAssertEqual(Array(login[7...9]), [ImportFixtures.totpURI, "2022-01-01T00:00:00.000Z", "2024-06-01T12:00:00.123Z"])
    }
}
