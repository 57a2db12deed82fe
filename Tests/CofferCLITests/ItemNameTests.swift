import Foundation
import XCTest

/// Items taken by name (architecture §12) in every command that takes one: id, id prefix, exact title,
/// unique part of a title; exit 4 for none, exit 6 AMBIGUOUS with the candidates for several.
/// (`copy` needs a clipboard: CopyCommandTests checks its names.)
final class ItemNameTests: XCTestCase {
    nonisolated(unsafe) private static var shared: (vault: TestVault, ids: [String: String])?

    /// A vault with GitHub, GitHub (work), GitLab and Bank (titles to ids).
    private func vault() throws -> (vault: TestVault, ids: [String: String]) {
        if let shared = Self.shared { return shared }
        let vault = try TestVault.make()
        let titles = ["GitHub", "GitHub (work)", "GitLab", "Bank"]
        let ids = try vault.addAll(titles.map { [$0, "--username", "user-\($0.prefix(6))", "--password", "pw-\($0)"] })
        let shared = (vault, Dictionary(uniqueKeysWithValues: zip(titles, ids)))
        Self.shared = shared
        return shared
    }

    override class func tearDown() {
        shared?.vault.destroy()
        shared = nil
        super.tearDown()
    }

    func testShowFindsAnItemByIDPrefixExactTitleOrUniquePart() throws {
        let (vault, ids) = try vault()
        let github = try XCTUnwrap(ids["GitHub"])
        let names = [github, String(github.prefix(8)), "github", "GITHUB", "lab", "bank", "(work)"]
        let expected = [github, github, github, github, ids["GitLab"], ids["Bank"], ids["GitHub (work)"]]
        let results = try vault.okAll(names.map { ["show", $0, "--field", "id"] })
        XCTAssertEqual(results.map(\.line), expected.map { $0 ?? "" }, "name → id")
    }

    func testSeveralMatchesAreExit6ListingTheCandidates() throws {
        let (vault, ids) = try vault()
        for command in [["show", "git"], ["edit", "git", "--notes", "x"], ["rm", "git"], ["history", "git"],
                        ["totp", "git"]] {
            let result = try vault.run(command)
            assertExit(result, 6)
            XCTAssertEqual(result.out, "", result.summary)
            let lines = result.err.split(separator: "\n")
            XCTAssertEqual(lines.count, 4, "one sentence and three candidates: \(result.summary)")
            XCTAssertTrue(lines.first?.contains("git") == true, result.summary)
            for (line, title) in zip(lines.dropFirst(), ["GitHub", "GitHub (work)", "GitLab"]) {
                XCTAssertTrue(line.contains(title) && line.contains(ids[title] ?? "?") && line.contains("user-"),
                              "candidate line for \(title): \(line)")
            }
            // Aligned columns: every candidate's username and id start where the others' do.
            let candidates = lines.dropFirst().map(String.init)
            func column(of text: (String) -> String) -> Set<Int> {
                Set(candidates.compactMap { line in line.range(of: text(line)).map { line.distance(from: line.startIndex, to: $0.lowerBound) } })
            }
            XCTAssertEqual(column { _ in "user-" }.count, 1, "usernames not aligned:\n\(result.err)")
            XCTAssertEqual(column { line in ids.values.first { line.contains($0) } ?? "?" }.count, 1, "ids not aligned:\n\(result.err)")
        }
        let kept = try vault.okAll(["GitHub", "GitHub (work)", "GitLab"].map { ["show", ids[$0] ?? "?", "--field", "title"] })
        XCTAssertEqual(kept.map(\.line), ["GitHub", "GitHub (work)", "GitLab"], "rm removed nothing")
    }

    func testNoMatchIsExit4NamingTheName() throws {
        let (vault, _) = try vault()
        for command in [["show", "nowhere"], ["edit", "nowhere", "--notes", "x"], ["rm", "nowhere"], ["history", "nowhere"],
                        ["totp", "nowhere"]] {
            assertError(try vault.run(command), 4, mentions: ["nowhere"])
        }
    }

    func testEditRemoveAndHistoryTakeNames() throws {
        let (vault, _) = try vault()
        let id = try vault.add("Zebra Crossing", ["--password", "first"])
        let edited = try vault.ok(["edit", "zebra", "--password", "second"])
        XCTAssertEqual(edited.line, id)
        let history = try vault.ok(["history", "ZEBRA CROSSING", "--reveal"])
        XCTAssertTrue(history.out.contains("password: first"), history.summary)
        let removed = try vault.ok(["rm", "crossing"])
        XCTAssertEqual(removed.out, id + "\n", "rm prints the removed item's id on stdout, as edit does")
        assertError(try vault.run(["show", id]), 4, mentions: [id])
    }

    func testFieldPrintsOneRawValue() throws {
        let (vault, _) = try vault()
        let id = try vault.add("Fields", ["--username", "ann", "--password", "p@ss word", "--origin", "a.example",
                                          "--origin", "b.example", "--notes", "two\nlines"])
        let fields = ["password", "username", "origin", "origins", "notes", "title", "id"]
        let results = try vault.okAll(fields.map { ["show", "fields", "--field", $0] })
        XCTAssertEqual(results.map(\.out), ["p@ss word\n", "ann\n", "a.example\n", "a.example\nb.example\n", "two\nlines\n",
                                           "Fields\n", id + "\n"])
    }

    func testUnknownFieldIsExit2ListingTheFields() throws {
        let (vault, _) = try vault()
        assertError(try vault.run(["show", "bank", "--field", "pin"]), 2, mentions: ["pin", "password", "username", "totp", "origin"])
        // `copy` first says whether there is a clipboard at all (CopyCommandTests has one: the
        // same sentence there); `kind` is never a field to copy.
        assertError(try vault.run(["show", "bank", "--field", "kind"]), 2, mentions: ["kind", "password"])
    }

    func testFieldTOTPWithoutSecretSaysSo() throws {
        let (vault, _) = try vault()
        assertError(try vault.run(["show", "bank", "--field", "totp"]), 1, mentions: ["Bank", "TOTP"])
        assertError(try vault.run(["totp", "bank"]), 1, mentions: ["Bank", "TOTP"])
    }
}
