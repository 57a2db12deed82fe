import CofferTestSupport
import XCTest
@testable import CofferCore

final class ItemValidationTests: XCTestCase {
    private let atLimit = String(repeating: "a", count: 500)
    private let overLimit = String(repeating: "a", count: 501)

    private func fields(_ item: Item) -> [String] { ItemValidation.problems(in: item).map(\.field) }

    func testAValidItemHasNoProblems() throws {
        let item = Fixture.item()
        XCTAssertEqual(ItemValidation.problems(in: item), [])
        XCTAssertNoThrow(try ItemValidation.validate(item))
    }

    func testTitleLimit() {
        var item = Fixture.item(title: atLimit)
        XCTAssertEqual(fields(item), [])
        item.title = overLimit
        XCTAssertEqual(fields(item), ["title"])
    }

    func testLimitsCountCharactersNotBytes() {
        // 500 two-byte characters are 1,000 UTF-8 bytes but within the 500-character limit.
        var item = Fixture.item(title: String(repeating: "é", count: 500))
        XCTAssertEqual(fields(item), [])
        item.title = String(repeating: "é", count: 501)
        XCTAssertEqual(fields(item), ["title"])
    }

    func testEmptyOrBlankTitleIsRejected() {
        XCTAssertEqual(fields(Fixture.item(title: "")), ["title"])
        XCTAssertEqual(fields(Fixture.item(title: " \t\n")), ["title"])
    }

    func testEachOriginIsLimitedAndNamedByIndex() {
        XCTAssertEqual(fields(Fixture.item(origins: ["a.example", atLimit])), [])
        XCTAssertEqual(fields(Fixture.item(origins: ["a.example", overLimit])), ["origins[1]"])
        XCTAssertEqual(fields(Fixture.item(origins: ["  ", "b.example"])), ["origins[0]"])
    }

    func testEachTagIsLimitedAndNamedByIndex() {
        XCTAssertEqual(fields(Fixture.item(tags: [atLimit, "x"])), [])
        XCTAssertEqual(fields(Fixture.item(tags: ["x", "y", overLimit])), ["tags[2]"])
        XCTAssertEqual(fields(Fixture.item(tags: [""])), ["tags[0]"])
    }

    func testUsernameAndPasswordLimits() {
        XCTAssertEqual(fields(Fixture.item(username: atLimit, password: atLimit)), [])
        XCTAssertEqual(fields(Fixture.item(username: overLimit)), ["entry.username"])
        XCTAssertEqual(fields(Fixture.item(password: overLimit)), ["entry.password"])
    }

    func testTotpLimit() {
        var item = Fixture.item()
        item.entry.totp = atLimit
        XCTAssertEqual(fields(item), [])
        item.entry.totp = overLimit
        XCTAssertEqual(fields(item), ["entry.totp"])
    }

    func testNotesLimit() {
        var item = Fixture.item()
        item.entry.notes = String(repeating: "n", count: 10_000)
        XCTAssertEqual(fields(item), [])
        item.entry.notes = String(repeating: "n", count: 10_001)
        XCTAssertEqual(fields(item), ["entry.notes"])
    }

    func testHistoryLimit() {
        var item = Fixture.item()
        let step = HistoryEntry(created: Fixture.epoch, patch: .object(["password": .string("old")]))
        item.history = Array(repeating: step, count: 100)
        XCTAssertEqual(fields(item), [])
        item.history.append(step)
        XCTAssertEqual(fields(item), ["history"])
    }

    func testNULIsRejectedInEveryTextField() {
        var item = Fixture.item(title: "a\u{0}b", username: "\u{0}", password: "p\u{0}",
                                origins: ["x\u{0}.example"], tags: ["t\u{0}"])
        item.entry.notes = "\u{0}"
        item.entry.totp = "otp\u{0}"
        XCTAssertEqual(Set(fields(item)), ["title", "origins[0]", "tags[0]", "entry.username", "entry.password",
                                           "entry.notes", "entry.totp"])
        XCTAssertTrue(ItemValidation.problems(in: item).allSatisfy { $0.reason.contains("NUL") })
    }

    func testBadIDsAreRejected() {
        for id in ["", "-leading-dash", "_leading", "has space", "ümlaut", "a/b", "a.b", String(repeating: "a", count: 201)] {
            XCTAssertEqual(fields(Fixture.item(id: id)), ["id"], "id \(id.debugDescription)")
        }
        for id in ["a", "0", "A-b_c", Item.newID(), String(repeating: "a", count: 200)] {
            XCTAssertEqual(fields(Fixture.item(id: id)), [], "id \(id.debugDescription)")
        }
    }

    /// Issue 30: every kind is stored, one this version does not know too (a newer device's);
    /// only a kind that is no name is refused.
    func testEntryKindIsAnyNameButNotNothing() {
        var item = Fixture.item()
        for kind in ["login", "note", "card", "identity", "ssh-key", "kind_of_2030"] {
            item.entry.kind = kind
            XCTAssertEqual(fields(item), [], kind)
        }
        for kind in ["", "card two", "card\u{1B}[2J", String(repeating: "k", count: 101)] {
            item.entry.kind = kind
            XCTAssertEqual(fields(item), ["entry.kind"], kind.debugDescription)
        }
    }

    func testKindAndCustomFieldsAreChecked() {
        var item = Fixture.item()
        item.entry.kind = "card"
        item.entry.fields = ["number": "4111111111111111", "expiry_month": "13", "expiry_year": "25",
                             "cardholder": overLimit]
        item.entry.custom = [CustomField(id: "f1", label: " ", value: "v"), CustomField(id: "f1", label: "PIN hint", value: "x"),
                             CustomField(id: "f3", label: "Long", value: String(repeating: "v", count: 10_001), type: .hidden)]
        XCTAssertEqual(Set(fields(item)), ["entry.expiry_month", "entry.expiry_year", "entry.cardholder",
                                           "custom[0].label", "custom[1].id", "custom[2].value"])
        item.entry.fields = ["number": "4111111111111111", "expiry_month": "7", "expiry_year": "2031"]
        item.entry.custom = [CustomField(id: "f1", label: "Bank", value: "ACME"),
                             CustomField(id: "f2", label: "Future", value: "x", typeName: "colour")]
        XCTAssertEqual(fields(item), [], "a type of a newer version is kept")
        item.entry.custom = (0...ItemValidation.customFieldLimit).map { CustomField(id: "f\($0)", label: "L", value: "") }
        XCTAssertEqual(fields(item), ["custom"])
    }

    func testModifiedBeforeCreatedIsRejected() {
        var item = Fixture.item()
        item.modified = Timestamp(milliseconds: item.created.milliseconds - 1)
        XCTAssertEqual(fields(item), ["modified"])
    }

    func testErrorNamesEveryBadField() {
        var item = Fixture.item(id: "not valid", title: "", username: overLimit, password: overLimit,
                                origins: ["ok.example", overLimit], tags: [overLimit])
        item.entry.kind = "card two"
        item.entry.notes = String(repeating: "n", count: 10_001)
        item.entry.totp = overLimit
        item.history = Array(repeating: HistoryEntry(created: Fixture.epoch, patch: .object([:])), count: 101)
        let expected: Set = ["id", "title", "origins[1]", "tags[0]", "entry.kind", "entry.username", "entry.password",
                             "entry.notes", "entry.totp", "history"]

        guard case .invalidItem(let id, let problems)? = thrownError({ try ItemValidation.validate(item) }) as? CoreError
        else { return XCTFail("expected invalidItem") }
        XCTAssertEqual(id, "not valid")
        XCTAssertEqual(Set(problems.map(\.field)), expected)
        XCTAssertEqual(problems.count, expected.count, "one problem per bad field: \(problems)")
        let message = CoreError.invalidItem(id: id, problems: problems).description
        for field in expected { XCTAssertTrue(message.contains(field), "message misses \(field): \(message)") }
    }
}
