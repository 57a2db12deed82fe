import Foundation
import XCTest

/// `export --format json` and `import --format json`: a lossless round trip, a 0600 file, and an
/// import that takes every item or none.
final class ImportExportTests: XCTestCase {
    private struct Source: @unchecked Sendable {
        var vault: TestVault
        var ids: [String]
        var exportPath: String
        var exported: [[String: Any]]
    }

    nonisolated(unsafe) private static var shared: Source?

    /// A vault with varied items (non-ASCII, TOTP, disabled, history, several origins and tags), exported once.
    private func source() throws -> Source {
        if let source = Self.shared { return source }
        let vault = try TestVault.make()
        var ids: [String] = []
        ids.append(try vault.add("Café ☕ 東京 Ωmega", [
            "--username", "ünï", "--password", "pässwörd ☕", "--notes", "Café ☕ 東京 Ωmega\nsecond line\t\"quoted\"",
            "--origin", "https://café.example/login", "--origin", "example.org", "--tag", "Work", "--tag", "東京",
            "--totp", "otpauth://totp/X?secret=JBSWY3DPEHPK3PXP",
        ]))
        ids.append(try vault.add("plain", []))
        let edited = try vault.add("edited", ["--username", "e1", "--password", "e-pw-1"])
        _ = try vault.ok(["edit", edited, "--password", "e-pw-2", "--totp", "KRSXG5CTMVRXEZLU"])
        _ = try vault.ok(["edit", edited, "--username", "e2", "--disabled"])
        ids.append(edited)
        let exportPath = vault.work.appendingPathComponent("export.json").path
        let result = try vault.ok(["export", "--format", "json", exportPath])
        XCTAssertEqual(result.out, "")
        let exported = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exportPath)))
            as? [[String: Any]])
        let source = Source(vault: vault, ids: ids, exportPath: exportPath, exported: exported)
        Self.shared = source
        return source
    }

    override class func tearDown() {
        shared?.vault.destroy()
        shared = nil
        super.tearDown()
    }

    func testExportWritesEveryItemWithSecretsToA0600File() throws {
        let source = try source()
        XCTAssertEqual(try permissions(source.exportPath), 0o600)
        XCTAssertEqual(Set(source.exported.compactMap { $0["id"] as? String }), Set(source.ids))
        for item in source.exported { assertKeys(item, Shapes.exported, "exported item") }
        let cafe = try XCTUnwrap(source.exported.first { $0["id"] as? String == source.ids[0] })
        XCTAssertEqual(cafe["password"] as? String, "pässwörd ☕")
        XCTAssertEqual(cafe["totp"] as? String, "otpauth://totp/X?secret=JBSWY3DPEHPK3PXP")
        let edited = try XCTUnwrap(source.exported.first { $0["id"] as? String == source.ids[2] })
        XCTAssertEqual((edited["history"] as? [[String: Any]])?.count, 2)
        XCTAssertEqual(((edited["history"] as? [[String: Any]])?.last?["patch"] as? [String: Any])?["password"] as? String, "e-pw-1",
                       "the export holds history in the clear")

        // Over an existing, world-readable file: replaced, and 0600. To stdout with "-": the same JSON.
        let existing = try source.vault.writeWorkFile("existing.json", "old")
        XCTAssertEqual(chmod(existing, 0o644), 0)
        _ = try source.vault.ok(["export", "--format", "json", existing])
        XCTAssertEqual(try permissions(existing), 0o600)
        let stdout = try source.vault.ok(["export", "--format", "json", "-"])
        XCTAssertEqual(stdout.stdout, try Data(contentsOf: URL(fileURLWithPath: existing)))
        XCTAssertEqual(try canonicalJSON(try stdout.json()), try canonicalJSON(source.exported))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: source.vault.work.path).filter { $0.contains("tmp") }
        XCTAssertEqual(leftovers, [])
    }

    func testImportIntoAFreshVaultReproducesEveryItem() throws {
        let source = try source()
        let target = try TestVault.make()
        defer { target.destroy() }
        let result = try target.ok(["import", "--format", "json", source.exportPath])
        XCTAssertEqual(result.out, "")
        XCTAssertEqual(try target.itemCount(), source.ids.count)
        XCTAssertEqual(Set(try target.list().compactMap { $0["id"] as? String }), Set(source.ids), "ids are preserved")
        for id in source.ids {
            let original = try canonicalJSON(try source.vault.show(id, reveal: true))
            let imported = try canonicalJSON(try target.show(id, reveal: true))
            XCTAssertEqual(imported, original, "item \(id) differs after export and import")
        }
        // The target's own export is the same file.
        XCTAssertEqual(try target.ok(["export", "--format", "json", "-"]).stdout,
                       try Data(contentsOf: URL(fileURLWithPath: source.exportPath)))

        // Importing the same file again: every id is taken; nothing changes.
        let before = try target.vaultContents()
        assertError(try target.run(["import", "--format", "json", source.exportPath]), 5, mentions: ["already exists"])
        XCTAssertEqual(try target.itemCount(), source.ids.count)
        XCTAssertEqual(try target.vaultContents(), before)
    }

    func testImportIntoTheSameVaultIsRefused() throws {
        let source = try source()
        let count = try source.vault.itemCount()
        // One new item first in the file, then an existing one: still nothing is imported.
        var items = source.exported
        items.insert(["title": "new, but alongside a duplicate"], at: 0)
        let file = try source.vault.writeWorkFile("with-duplicate.json",
                                                  try JSONSerialization.data(withJSONObject: items))
        assertError(try source.vault.run(["import", "--format", "json", file]), 5, mentions: ["already exists"])
        assertError(try source.vault.run(["import", "--format", "json", source.exportPath]), 5, mentions: ["already exists"])
        XCTAssertEqual(try source.vault.itemCount(), count)
        XCTAssertFalse(try source.vault.search("alongside").count > 0)
    }

    func testBadImportFilesAreExit5AndImportNothing() throws {
        let source = try source()
        let vault = source.vault
        let count = try vault.itemCount()
        let valid = #"{"title": "valid one", "password": "ok"}"#
        let newID = UUID().uuidString.lowercased()
        let cases: [(String, String, [String])] = [
            ("malformed", #"[{"title": "cut off", "#, ["json"]),
            ("empty file", "", ["json"]),
            ("object", #"{"title": "not in an array"}"#, ["array"]),
            ("string", #""just a string""#, ["array"]),
            ("array of strings", #"["a", "b"]"#, ["item 1"]),
            ("one invalid among valid", "[\(valid), {\"title\": \"\(String(repeating: "t", count: 501))\"}, \(valid)]",
             ["item 2", "title"]),
            ("long notes", "[\(valid), {\"title\": \"n\", \"notes\": \"\(String(repeating: "n", count: 10_001))\"}]",
             ["item 2", "notes"]),
            ("unknown member", "[\(valid), {\"title\": \"x\", \"colour\": \"red\"}]", ["colour"]),
            ("missing title", "[\(valid), {\"username\": \"no title\"}]", ["title"]),
            ("wrong type", "[\(valid), {\"title\": \"x\", \"tags\": \"not a list\"}]", ["tags"]),
            ("bad id", "[{\"id\": \"not an id!\", \"title\": \"x\"}]", ["id"]),
            ("duplicate id", "[{\"id\": \"\(newID)\", \"title\": \"a\"}, {\"id\": \"\(newID)\", \"title\": \"b\"}]", [newID]),
            ("bad time", "[{\"title\": \"x\", \"created\": \"yesterday\"}]", ["item 1"]),
        ]
        for (name, text, mentions) in cases {
            let file = try vault.writeWorkFile("bad-\(name.replacingOccurrences(of: " ", with: "-")).json", text)
            let result = try vault.run(["import", "--format", "json", file])
            assertError(result, 5, mentions: mentions)
            if result.status != 5 { XCTFail("case: \(name)") }
        }
        XCTAssertEqual(try vault.itemCount(), count, "a refused import stored items")
        XCTAssertEqual(try vault.search("valid one").count, 0)

        // A good file is accepted and items without id get a new one.
        let good = try vault.writeWorkFile("good.json", "[\(valid)]")
        assertOK(try vault.run(["import", "--format", "json", good]))
        let imported = try vault.search("valid one")
        XCTAssertEqual(imported.count, 1)
        assertItemID(imported.first?["id"] as? String ?? "")
        XCTAssertEqual(try vault.itemCount(), count + 1)
        _ = try vault.ok(["rm", imported.first?["id"] as? String ?? ""])

        let missing = vault.work.appendingPathComponent("no-such-file.json").path
        let unreadable = try vault.run(["import", "--format", "json", missing])
        XCTAssertNotEqual(unreadable.status, 0)
        assertError(unreadable, unreadable.status, mentions: [missing])
    }
}
