import CofferCore
import XCTest
@testable import CofferTUI

/// Golden 80×24 frames of the pages that show item kinds: the list's kind column and filter, each
/// kind's detail masked and revealed, `n`'s question, each kind's form, a review of custom fields.
final class KindSnapshotTests: XCTestCase {
    let now = FakeClock.start

    func frame(_ state: ScreenState) -> Grid {
        Render.frame(state, size: .standard, now: now)
    }

    func state(showing page: Page, items: [ScreenItem] = Fixtures.kindItems) -> ScreenState {
        var state = Fixtures.unlocked(items: items)
        state.page = page
        return state
    }

    // MARK: The list

    func testListShowsEachKind() {
        assertSnapshot(frame(Fixtures.unlocked(items: Fixtures.kindItems)), named: "list-kinds")
    }

    func testListFilteredToOneKind() {
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        state.list.filter = TextField("kind:card")
        assertSnapshot(frame(state), named: "list-kind-filter")
    }

    // MARK: Details

    func testCardDetail() {
        let masked = frame(state(showing: .detail(DetailState(itemID: "h8"))))
        assertSnapshot(masked, named: "detail-card")
        for secret in ["4111", "737", "4321", "+44 20", "GEZDG"] {
            XCTAssertFalse(masked.text.contains(secret), "\(secret) shows before r")
        }
        let revealed = frame(state(showing: .detail(DetailState(itemID: "h8", isRevealed: true, selected: .custom("f-line")))))
        assertSnapshot(revealed, named: "detail-card-revealed")
        XCTAssertFalse(revealed.text.contains("GEZDG"), "a TOTP field shows its code, never its secret")
    }

    func testIdentityDetail() {
        assertSnapshot(frame(state(showing: .detail(DetailState(itemID: "i9")))), named: "detail-identity")
        assertSnapshot(frame(state(showing: .detail(DetailState(itemID: "i9", isRevealed: true)))),
                       named: "detail-identity-revealed")
    }

    func testNoteDetail() {
        assertSnapshot(frame(state(showing: .detail(DetailState(itemID: "j10")))), named: "detail-note")
        assertSnapshot(frame(state(showing: .detail(DetailState(itemID: "j10", isRevealed: true)))),
                       named: "detail-note-revealed")
    }

    /// An SSH key (issue 32): the private key file masked until revealed; the public key line,
    /// fingerprint, comment and the agent's rules as text.
    func testSSHKeyDetail() {
        let key = Item(
            id: "s12", title: "Deploy key", tags: ["ci"],
            entry: Entry(kind: "ssh-key", fields: [
                "private_key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n",
                "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBvZIMMjXWf2SbYvMR8QJoM2J72nFD2UYWCVw9RkBHYS deploy",
                "fingerprint": "SHA256:1Cby8N2SR3GIxIqu0V75PQTqOe08hJebvb05HldY8xI", "comment": "deploy",
                "hosts": "github.com", "confirm": "yes",
            ]),
            created: Fixtures.visa.created, modified: Fixtures.visa.modified)
        let items = Fixtures.kindItems + [ScreenItem(key)]
        let masked = frame(state(showing: .detail(DetailState(itemID: "s12")), items: items))
        assertSnapshot(masked, named: "detail-ssh-key")
        XCTAssertFalse(masked.text.contains("b3BlbnNzaC1"), "the private key shows before r")
        assertSnapshot(frame(state(showing: .detail(DetailState(itemID: "s12", isRevealed: true)), items: items)),
                       named: "detail-ssh-key-revealed")
    }

    /// A kind from a newer version: its fields by name as text, `pin` masked by its name, and the
    /// escape sequence in a field shown as text (OSC 52 would set the clipboard).
    func testDetailOfAnUnknownKind() {
        let masked = frame(state(showing: .detail(DetailState(itemID: "k11"))))
        assertSnapshot(masked, named: "detail-unknown-kind")
        let revealed = frame(state(showing: .detail(DetailState(itemID: "k11", isRevealed: true))))
        assertSnapshot(revealed, named: "detail-unknown-kind-revealed")
        for grid in [masked, revealed] {
            XCTAssertFalse(grid.text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" },
                           grid.text)
        }
        XCTAssertTrue(revealed.text.contains("\\e]52;c;ZXZpbA==\\a\\u202Emoc"), revealed.text)
    }

    // MARK: The kind question and the forms

    func testNewItemAsksTheKind() {
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        state.overlay = .chooseKind(KindQuestion(cursor: 2, askedOn: .list))
        assertSnapshot(frame(state), named: "new-item-kind")
    }

    /// A new card being filled in: the secrets masked as typed, a custom field added and focused.
    func testNewCardForm() {
        var form = ItemForm(kind: .card)
        form.texts[.title] = TextField("Visa")
        form.texts[.kind("cardholder")] = TextField("Alice Smith")
        form.texts[.kind("number")] = TextField("4111 1111 1111 1111")
        form.texts[.kind("expiry_month")] = TextField("12")
        form.texts[.kind("code")] = TextField("737")
        form.addCustomField()
        form.texts[.customLabel("new-field-1")] = TextField("PIN hint")
        form.addCustomField()
        form.custom[1].type = CustomField.FieldType.hidden.rawValue
        form.texts[.customLabel("new-field-2")] = TextField("Bank line")
        form.texts[.customValue("new-field-2")] = TextField("+44 20 7946 0000")
        form.focus = .customValue("new-field-2")
        let grid = frame(state(showing: .form(form)))
        assertSnapshot(grid, named: "form-card")
        for secret in ["4111", "737", "+44"] { XCTAssertFalse(grid.text.contains(secret), "\(secret) typed unmasked") }
    }

    /// An identity's form is taller than the page: it scrolls to the focused field.
    func testIdentityFormScrollsToTheFocus() {
        var form = ItemForm(editing: Fixtures.alice)
        form.focus = .customValue("f-web")
        assertSnapshot(frame(state(showing: .form(form))), named: "form-identity")
    }

    func testNoteFormWithAProblem() {
        var form = ItemForm(editing: Fixtures.recovery)
        form.texts[.customLabel("f-backup")] = TextField("")
        form.hasChanges = true
        Update.place([FieldProblem(field: "custom[0].label", reason: "must not be empty")], in: &form)
        assertSnapshot(frame(state(showing: .form(form))), named: "form-note")
    }

    /// A custom field's label as wide as its column shows whole while another field has the focus
    /// (it lost its first letter to a cursor column: "ecovery code"), and an unfocused value
    /// longer than its column shows its start.
    func testAnUnfocusedCustomFieldShowsItsLabelAndValueFromTheirStart() throws {
        var item = Fixtures.recovery
        let value = "first-" + String(repeating: "x", count: 80) + "-last"
        item.entry.custom = [CustomField(id: "f-code", label: "Recovery code", value: value, type: .text)]
        let form = ItemForm(editing: item)
        XCTAssertEqual(form.focus, .title)
        let grid = frame(state(showing: .form(form)))
        let row = try XCTUnwrap((0..<24).map(grid.line).first { $0.contains("first-") }, grid.text)
        XCTAssertTrue(row.contains("Recovery code first-xxx"), row)
        XCTAssertFalse(row.contains("-last"), row)
    }

    func testFormOfAnUnknownKind() {
        assertSnapshot(frame(state(showing: .form(ItemForm(editing: Fixtures.future)))), named: "form-unknown-kind")
    }

    // MARK: Review

    /// Custom fields in a review go by their label; a hidden one is masked on both sides (its type
    /// changed to text on one), one removed on a side says so.
    func testReviewOfCustomFields() {
        var hiddenHere = ItemMerge.FieldConflict(field: .custom("f-line"), local: "+44 20 7946 0000",
                                                 remote: "+44 20 7946 9999", chosen: .remote)
        hiddenHere.customLocal = CustomField(id: "f-line", label: "Bank line", value: "+44 20 7946 0000", type: .hidden)
        hiddenHere.customRemote = CustomField(id: "f-line", label: "Bank line", value: "+44 20 7946 9999", type: .text)
        var removedThere = ItemMerge.FieldConflict(field: .custom("f-hint"), local: "the usual one", remote: "",
                                                   changedOn: .remote, chosen: .remote)
        removedThere.customLocal = CustomField(id: "f-hint", label: "PIN hint", value: "the usual one")
        let review = ConflictReview(itemID: "h8", title: "Visa", fields: [
            FieldConflict(name: .named("number"), local: "4111 1111 1111 1111", remote: "5500 0000 0000 0004",
                          chosen: .local),
            FieldConflict(hiddenHere), FieldConflict(removedThere),
        ])
        let masked = frame(state(showing: .review(ReviewState(reviews: [review]))))
        assertSnapshot(masked, named: "conflict-review-custom")
        for secret in ["4111", "5500", "+44"] { XCTAssertFalse(masked.text.contains(secret), "\(secret) shows before r") }
        let revealed = frame(state(showing: .review(ReviewState(reviews: [review], isRevealed: true))))
        XCTAssertTrue(revealed.text.contains("+44 20 7946 9999"), revealed.text)
    }
}
