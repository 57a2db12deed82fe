import XCTest
@testable import CofferCore

/// Names to items (architecture §12) as a table: id, id prefix, exact title, unique part of a title.
final class ItemNameResolverTests: XCTestCase {
    private typealias Candidate = ItemNameResolver.Candidate

    private let github = Candidate(id: "3f2a9c10-1111-4aaa-8bbb-000000000001", title: "GitHub", username: "octo")
    private let gitlab = Candidate(id: "3f2a9c20-2222-4aaa-8bbb-000000000002", title: "GitLab", username: "fox")
    private let githubWork = Candidate(id: "a0b1c2d3-3333-4aaa-8bbb-000000000003", title: "GitHub (work)", username: "me")
    private let bank = Candidate(id: "cafe0000-4444-4aaa-8bbb-000000000004", title: "Bank", username: "")
    private let cafe = Candidate(id: "b0000000-5555-4aaa-8bbb-000000000005", title: "Café", username: "barista")
    private let twinA = Candidate(id: "d0000000-6666-4aaa-8bbb-000000000006", title: "Mail", username: "a")
    private let twinB = Candidate(id: "e0000000-7777-4aaa-8bbb-000000000007", title: "mail", username: "b")
    private let unreadable = Candidate(id: "f0000000-8888-4aaa-8bbb-000000000008", title: nil)

    private var all: [Candidate] { [github, gitlab, githubWork, bank, cafe, twinA, twinB, unreadable] }

    func testTable() {
        let cases: [(String, ItemNameResolver.Resolution, String)] = [
            (github.id, .found(github.id), "a whole id"),
            (unreadable.id, .found(unreadable.id), "an unreadable item by its id (the read then says why)"),
            ("3f2a9c1", .found(github.id), "a unique id prefix"),
            ("3F2A9C1", .found(github.id), "id prefixes ignore case"),
            ("3f2a", .ambiguous([github, gitlab]), "an id prefix of two items"),
            ("cafe", .found(bank.id), "an id prefix comes before a title"),
            ("caf", .found(cafe.id), "shorter than 4: not an id prefix, a part of “Café”"),
            ("github", .found(github.id), "an exact title (ignoring case) beats the longer title holding it"),
            ("GITLAB", .found(gitlab.id), "exact title, other case"),
            ("lab", .found(gitlab.id), "a unique part of a title"),
            ("git", .ambiguous([github, githubWork, gitlab]), "a part of three titles, listed by title"),
            ("(work)", .found(githubWork.id), "punctuation is matched as given"),
            ("café", .found(cafe.id), "exact title with an accent"),
            ("CAFE", .found(bank.id), "id prefix first, even when a title folds to it"),
            ("mail", .ambiguous([twinA, twinB]), "two titles equal but for case"),
            ("nothing like it", .none, "no match"),
            ("", .none, "an empty name matches nothing"),
            ("ffff", .none, "a hex prefix of no id, in no title"),
        ]
        for (name, expected, why) in cases {
            XCTAssertEqual(ItemNameResolver.resolve(name, among: all), expected, "\(name): \(why)")
        }
    }

    func testEmptyVault() {
        XCTAssertEqual(ItemNameResolver.resolve("github", among: []), .none)
    }

    func testAmbiguityMessageListsEveryCandidateOnItsOwnLine() {
        let message = CoreError.ambiguousName("git", candidates: [github, gitlab]).description
        let lines = message.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, message)
        XCTAssertTrue(lines[0].hasSuffix(":"), message)
        XCTAssertTrue(lines[1].contains("GitHub") && lines[1].contains("octo") && lines[1].contains(github.id), message)
        XCTAssertTrue(lines[2].contains("GitLab") && lines[2].contains("fox") && lines[2].contains(gitlab.id), message)
    }
}
