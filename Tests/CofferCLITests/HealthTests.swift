import Foundation
import XCTest

/// `coffer health` with the real binary on a vault of planted passwords: each weak, reused, old
/// and breached one is found, and nothing else is.
final class HealthTests: XCTestCase {
    private var vault: TestVault!
    /// Title → id of the planted items.
    private var ids: [String: String] = [:]
    private let shared = HealthTests.randomPassword()
    private let leaked = HealthTests.randomPassword()

    override func setUpWithError() throws {
        vault = try TestVault.make()
        try plant()
    }

    override func tearDownWithError() throws {
        vault?.destroy()
    }

    /// 24 characters from 70: about 147 bits drawn, far above the weak threshold.
    private static func randomPassword() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&*+-.:")
        return String((0..<24).map { _ in alphabet.randomElement()! })
    }

    private static func iso(daysAgo days: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date().addingTimeInterval(-days * 86_400))
    }

    /// Imports the planted items (import keeps `created`, `modified` and `history`).
    private func plant() throws {
        let recent = Self.iso(daysAgo: 10)
        let twoYears = Self.iso(daysAgo: 730)
        func item(_ title: String, _ password: String, created: String = recent, modified: String = recent,
                  history: [[String: Any]] = []) -> [String: Any] {
            ["title": title, "username": "someone", "password": password, "created": created, "modified": modified,
             "history": history]
        }
        let items: [[String: Any]] = [
            item("Forum", "password1234"),  // weak (zxcvbn ≈ 3 bits)
            item("Mail", shared),  // reused with Shop
            item("Shop", shared),
            item("Router", Self.randomPassword(), created: twoYears, modified: twoYears),  // old: no history, modified
            // Old by its history: the notes changed last week, the password two years ago.
            item("Legacy", Self.randomPassword(), created: Self.iso(daysAgo: 1_000), modified: recent, history: [
                ["created": recent, "patch": ["notes": "before"]],
                ["created": twoYears, "patch": ["password": Self.randomPassword()]],
            ]),
            // Not old: created long ago, but the password changed recently.
            item("Renewed", Self.randomPassword(), created: Self.iso(daysAgo: 1_000), modified: recent, history: [
                ["created": recent, "patch": ["password": "the old one"]],
            ]),
            item("Leaked", leaked),  // breached, with the breach list
            item("Fine", Self.randomPassword()),
            ["title": "No password", "username": "someone", "created": twoYears, "modified": twoYears],
        ]
        let file = try vault.writeWorkFile("planted.json", try JSONSerialization.data(withJSONObject: items))
        try vault.ok(["import", "--format", "json", file])
        for listed in try vault.list() {
            ids[try XCTUnwrap(listed["title"] as? String)] = try XCTUnwrap(listed["id"] as? String)
        }
        XCTAssertEqual(ids.count, items.count)
    }

    /// SHA-1 in uppercase hex, computed by coreutils' `sha1sum`, not by the code under test.
    private func sha1(_ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha1sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(40)).uppercased()
    }

    private static func randomHash(startingWith prefix: Substring = "") -> String {
        prefix + String((0..<(40 - prefix.count)).map { _ in "0123456789ABCDEF".randomElement()! })
    }

    /// A sorted `HASH:COUNT` list of `others` random hashes and the leaked password's (count 4242);
    /// `keep` chooses which random hashes may be in it (all, or only those after or before it).
    private func breachList(others: Int, name: String, keep: (String, String) -> Bool = { _, _ in true }) throws -> String {
        let leakedHash = try sha1(leaked)
        var lines = [leakedHash + ":4242"]
        while lines.count <= others {
            // Sharing a prefix with the leaked hash now and then puts lines right next to it.
            let hash = Self.randomHash(startingWith: leakedHash.prefix(Int.random(in: 0...3)))
            if hash != leakedHash, keep(hash, leakedHash) { lines.append(hash + ":\(Int.random(in: 1...99_999_999))") }
        }
        lines.sort()
        return try vault.writeWorkFile(name, lines.joined(separator: "\n") + "\n")
    }

    private func health(_ arguments: [String] = []) throws -> [String: Any] {
        try vault.ok(["health", "--json"] + arguments).jsonObject()
    }

    private func ids(_ findings: Any?) throws -> Set<String> {
        let list = try XCTUnwrap(findings as? [[String: Any]], "\(String(describing: findings))")
        return Set(list.compactMap { $0["id"] as? String })
    }

    func testEveryPlantedKindIsFoundAndNothingElse() throws {
        let report = try health(["--breached", try breachList(others: 5_000, name: "pwned.txt")])
        XCTAssertEqual(Set(report.keys), ["weak", "reused", "old", "breached"])

        XCTAssertEqual(try ids(report["weak"]), [ids["Forum"]!])
        let weak = try XCTUnwrap((report["weak"] as? [[String: Any]])?.first)
        XCTAssertEqual(weak["title"] as? String, "Forum")
        XCTAssertLessThan(try XCTUnwrap(weak["bits"] as? Int), 50)

        let reused = try XCTUnwrap(report["reused"] as? [[String: Any]])
        XCTAssertEqual(reused.count, 1, "\(reused)")
        XCTAssertEqual(Set(reused.first?["ids"] as? [String] ?? []), [ids["Mail"]!, ids["Shop"]!])
        XCTAssertEqual(Set(reused.first?["titles"] as? [String] ?? []), ["Mail", "Shop"])

        XCTAssertEqual(try ids(report["old"]), [ids["Router"]!, ids["Legacy"]!])
        let old = try XCTUnwrap(report["old"] as? [[String: Any]])
        for finding in old {
            let changed = try XCTUnwrap(finding["changed"] as? String)
            XCTAssertTrue(changed.hasPrefix(Self.iso(daysAgo: 730).prefix(7)), "changed \(changed)")
        }

        let breached = try XCTUnwrap(report["breached"] as? [[String: Any]])
        XCTAssertEqual(try ids(breached), [ids["Leaked"]!])
        XCTAssertEqual(breached.first?["count"] as? Int, 4242)
        XCTAssertEqual(breached.first?["title"] as? String, "Leaked")
    }

    /// Issue 30: a login's hidden custom fields are checked like its password (weak, reused,
    /// breached), each finding naming the field; another kind's are not, nor text fields.
    func testALoginsHiddenCustomFieldsAreChecked() throws {
        let bank = try vault.add("Bank", ["--password", Self.randomPassword(), "--hidden-field", "PIN=1234",
                                          "--hidden-field", "Recovery=\(shared)", "--field", "Branch=password1234"])
        _ = try vault.add("Card", ["--kind", "card", "--hidden-field", "Hint=1234", "--field", "pin=0000"])
        let report = try health(["--breached", try breachList(others: 100, name: "pwned-fields.txt")])

        let weak = try XCTUnwrap(report["weak"] as? [[String: Any]])
        XCTAssertEqual(Set(weak.compactMap { $0["id"] as? String }), [ids["Forum"]!, bank], "\(weak)")
        XCTAssertEqual(weak.first { $0["id"] as? String == bank }?["field"] as? String, "PIN")
        XCTAssertNil(weak.first { $0["id"] as? String == ids["Forum"]! }?["field"], "a password's finding names no field")

        let reused = try XCTUnwrap(report["reused"] as? [[String: Any]])
        XCTAssertEqual(reused.count, 1, "\(reused)")
        XCTAssertEqual(Set(reused.first?["ids"] as? [String] ?? []), [ids["Mail"]!, ids["Shop"]!, bank])
        let fields = try XCTUnwrap(reused.first?["fields"] as? [Any])
        XCTAssertEqual(fields.compactMap { $0 as? String }, ["Recovery"])

        let text = try vault.ok(["health"]).out
        XCTAssertTrue(text.contains("Bank · PIN"), text)
        XCTAssertTrue(text.contains("Bank · Recovery"), text)
    }

    func testTheLeakedLineIsFoundFirstAndLastInTheFile() throws {
        let first = try breachList(others: 2_000, name: "first.txt") { hash, leaked in hash > leaked }
        let last = try breachList(others: 2_000, name: "last.txt") { hash, leaked in hash < leaked }
        let leakedHash = try sha1(leaked)
        for (file, position) in [(first, "first"), (last, "last")] {
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
            XCTAssertEqual(lines.count, 2_001)
            XCTAssertTrue((position == "first" ? lines.first : lines.last)?.hasPrefix(leakedHash) == true, position)
            let breached = try XCTUnwrap(try health(["--breached", file])["breached"] as? [[String: Any]], position)
            XCTAssertEqual(try ids(breached), [ids["Leaked"]!], position)
            XCTAssertEqual(breached.first?["count"] as? Int, 4242, position)
        }
        // Lines sorted around a hash that is not ours: nothing is breached.
        let clean = try vault.writeWorkFile("clean.txt", (0..<3_000).map { index in
            String(format: "%040lX:%ld", index * 7_919, index + 1)
        }.joined(separator: "\n"))
        XCTAssertEqual(try ids(try health(["--breached", clean])["breached"]), [])
    }

    func testWithoutABreachListBreachedIsNullAndTextHasEverySection() throws {
        XCTAssertTrue(try health()["breached"] is NSNull)
        let text = try vault.ok(["health"]).out
        for title in ["Weak passwords", "Reused passwords", "Old passwords", "Breached passwords: not checked"] {
            XCTAssertTrue(text.contains(title), "no \(title) in:\n\(text)")
        }
        XCTAssertTrue(text.contains("Forum"), text)
        XCTAssertTrue(text.contains("Mail, Shop") || text.contains("Shop, Mail"), text)
        XCTAssertFalse(text.contains("Fine"), "a healthy item is listed:\n\(text)")
        XCTAssertFalse(text.contains(shared), "a password was printed")
    }

    func testAMissingOrMalformedBreachListIsAnError() throws {
        assertError(try vault.run(["health", "--breached", vault.work.appendingPathComponent("nope").path]), 1,
                    mentions: ["Cannot read"])
        let bad = try vault.writeWorkFile("bad.txt", "hello\nworld\n")
        assertError(try vault.run(["health", "--breached", bad]), 1, mentions: ["SHA1HEX:COUNT"])
    }
}
