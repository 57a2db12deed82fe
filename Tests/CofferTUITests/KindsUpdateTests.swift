import CofferCore
import XCTest
@testable import CofferTUI

/// Item kinds on the screen, one event at a time: `n`'s question, the kind filter, the detail's
/// field cursor and its copy, each kind's form with its custom fields added, removed, moved and
/// typed, and what a save of each writes (and keeps).
final class KindsUpdateTests: XCTestCase {
    let now = FakeClock.start

    func kinds() -> Driver { Driver(Fixtures.unlocked(items: Fixtures.kindItems)) }

    // MARK: The kind question

    func testNewItemOfAKindAsksTheKindAndEnterMakesALogin() {
        let driver = kinds()
        driver.press(.character("N")) { $0.overlay = .chooseKind(KindQuestion(askedOn: .list)) }
        driver.press(.enter) { state in
            state.overlay = nil
            state.page = .form(ItemForm(kind: .login))
        }
    }

    /// `n` makes a login's form at once; ^K steps a new item's kind in place, keeping what was
    /// typed (the title, and a login's username when it comes round again); a saved item keeps its kind.
    func testNMakesALoginWhoseKindCtrlKChanges() {
        let driver = kinds()
        driver.press(.character("n")) { $0.page = .form(ItemForm(kind: .login)) }
        driver.type("Visa")
        _ = Update.apply(.key(.tab), to: &driver.state, now: now)
        driver.type("alice")
        for _ in 0..<2 { _ = Update.apply(.key(.control("k")), to: &driver.state, now: now) }
        guard case .form(let card) = driver.state.page else { return XCTFail("the form closed") }
        XCTAssertEqual(card.kindName, ItemKind.card.name)
        XCTAssertEqual(card.text(.title), "Visa")
        XCTAssertEqual(card.fields.first { $0 == .kind("cardholder") }, .kind("cardholder"))
        XCTAssertEqual(card.focus, .title, "the username's row is gone: back to the title")
        for _ in 0..<3 { _ = Update.apply(.key(.control("k")), to: &driver.state, now: now) }
        guard case .form(let login) = driver.state.page else { return XCTFail("the form closed") }
        XCTAssertEqual(login.kindName, ItemKind.login.name, "after the SSH key, a login again")
        XCTAssertEqual(login.text(.username), "alice")

        var editing = Fixtures.unlocked(items: Fixtures.kindItems)
        editing.page = .form(ItemForm(editing: Fixtures.bank))
        _ = Update.apply(.key(.control("k")), to: &editing, now: now)
        XCTAssertEqual(editing.page, .form(ItemForm(editing: Fixtures.bank)))
        XCTAssertEqual(editing.notice?.text, "A saved item keeps its kind.")
    }

    func testTheQuestionMovesAndPicksByLetter() {
        let driver = kinds()
        driver.press(.character("N")) { $0.overlay = .chooseKind(KindQuestion(askedOn: .list)) }
        driver.press(.down) { $0.overlay = .chooseKind(KindQuestion(cursor: 1, askedOn: .list)) }
        driver.press(.character("j")) { $0.overlay = .chooseKind(KindQuestion(cursor: 2, askedOn: .list)) }
        driver.press(.character("j")) { $0.overlay = .chooseKind(KindQuestion(cursor: 3, askedOn: .list)) }
        driver.press(.character("j")) { $0.overlay = .chooseKind(KindQuestion(cursor: 4, askedOn: .list)) }
        driver.press(.character("j"))  // the last stays
        driver.press(.up) { $0.overlay = .chooseKind(KindQuestion(cursor: 3, askedOn: .list)) }
        driver.press(.up) { $0.overlay = .chooseKind(KindQuestion(cursor: 2, askedOn: .list)) }
        driver.press(.enter) { state in
            state.overlay = nil
            state.page = .form(ItemForm(kind: .card))
        }
        for (letter, kind) in [("l", ItemKind.login), ("n", .note), ("c", .card), ("i", .identity), ("s", .sshKey)] {
            var state = Fixtures.unlocked()
            for key in [Key.character("N"), .character(Character(letter))] { _ = Update.apply(.key(key), to: &state, now: now) }
            XCTAssertNil(state.overlay, letter)
            XCTAssertEqual(state.page, .form(ItemForm(kind: kind)), letter)
        }
    }

    func testEscapeCancelsTheQuestionAndOtherKeysDoNothing() {
        let driver = kinds()
        driver.press(.character("N")) { $0.overlay = .chooseKind(KindQuestion(askedOn: .list)) }
        driver.press(.character("x"))
        driver.press(.character("q"))  // not quit: the question takes the keys
        driver.press(.escape) { $0.overlay = nil }
        XCTAssertNil(driver.state.exitCode)
    }

    /// Asked over a detail whose item another process removed: the question goes with the page.
    func testTheQuestionGoesWithItsPage() {
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        state.page = .detail(DetailState(itemID: "h8"))
        _ = Update.apply(.key(.character("N")), to: &state, now: now)
        XCTAssertEqual(state.overlay, .chooseKind(KindQuestion(askedOn: .detail(itemID: "h8"))))
        _ = Update.apply(.reloaded(items: Fixtures.kindItems.filter { $0.id != "h8" }, summary: Fixtures.summary),
                         to: &state, now: now)
        XCTAssertEqual(state.page, .list)
        XCTAssertNil(state.overlay)
        _ = Update.apply(.key(.character("c")), to: &state, now: now)
        XCTAssertEqual(state.page, .list, "c copied or did nothing; it opened no card form")
    }

    // MARK: The kind filter

    func testKindWordsKeepOneKind() {
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        let table: [(String, [String])] = [
            ("kind:card", ["h8"]),
            ("kind:c", ["h8"]),  // while typing
            ("KIND:Login", ["b2", "a1"]),
            ("kind:login bank", ["b2"]),
            ("kind:note kind:identity", ["i9", "j10"]),
            ("kind:passkey", ["k11"]),  // a newer version's kind, by its name
            ("kind:nothing", []),
            ("finance", ["b2", "h8"]),  // a card's tag
            ("smith", ["i9", "b2", "h8"]),  // a username, an identity's last name, a cardholder
            ("homepage", ["i9"]),  // a custom field's label
            ("4111", []),  // a card's number is secret: never searched
            ("kind:", ["i9", "b2", "a1", "k11", "j10", "h8", "g7"]),
        ]
        for (text, expected) in table {
            state.list.filter = TextField(text)
            XCTAssertEqual(state.visibleItems.map(\.id), expected, text)
            XCTAssertEqual(ItemFilter.visible(Fixtures.kindItems, query: text, sort: .title).map(\.id), expected, text)
        }
    }

    /// Typing a word after `kind:card` narrows from the rows the memo kept for the words alone.
    func testTypingAfterAKindWordNarrowsTheSameAsAtOnce() {
        let driver = kinds()
        driver.state.list.isFilterFocused = true
        driver.type("kind:login g")
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["a1"])
        driver.type("it")
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["a1"])
        for _ in 0..<3 { _ = Update.apply(.key(.backspace), to: &driver.state, now: now) }
        XCTAssertEqual(driver.state.visibleItems.map(\.id), ["b2", "a1"])
    }

    func testKStepsThroughTheKindsKeepingTheOtherWords() {
        let driver = kinds()
        driver.state.list.filter = TextField("smith")
        // The selection stays while its row shows, else goes to the first row (none: it stays).
        let steps = [("smith kind:login", "b2"), ("smith kind:note", "b2"), ("smith kind:card", "h8"),
                     ("smith kind:identity", "i9"), ("smith kind:ssh-key", "i9"), ("smith", "i9")]
        for (text, selected) in steps {
            driver.press(.character("K")) { state in
                state.list.filter = TextField(text)
                state.list.selectedID = selected
            }
        }
        XCTAssertEqual(ItemFilter.nextKind(in: "kind:passkey"), "kind:login", "an unknown kind steps to the first")
        XCTAssertEqual(ItemFilter.nextKind(in: ""), "kind:login")
    }

    // MARK: The detail's cursor and copy

    func testTheCursorMovesOverFieldsAndEnterCopiesTheOneUnderIt() {
        var start = Fixtures.unlocked(items: Fixtures.kindItems)
        start.list.selectedID = "h8"
        start.page = .detail(DetailState(itemID: "h8"))
        let driver = Driver(start)
        func detail(_ field: DetailField) -> Page { .detail(DetailState(itemID: "h8", selected: field)) }
        driver.press(.down) { $0.page = detail(.entry("number")) }
        driver.press(.enter, effects: [.copyToClipboard("4111 1111 1111 1111")]) { state in
            state.clipboard = ClipboardCountdown(field: ClipboardCountdown.Field(name: "number"),
                                                 until: self.now.addingTimeInterval(10))
            state.notice = Notice("Copied the number of “Visa”.", until: self.now.addingTimeInterval(5))
        }
        for field in [DetailField.entry("expiry_month"), .entry("expiry_year"), .entry("code"), .entry("pin"),
                      .custom("f-hint"), .custom("f-line")] {
            driver.press(.character("j")) { $0.page = detail(field) }
        }
        // A hidden custom field is copied as it is, masked or not.
        driver.press(.enter, effects: [.copyToClipboard("+44 20 7946 0000")]) { state in
            state.clipboard = ClipboardCountdown(field: ClipboardCountdown.Field(name: "field “Bank line”"),
                                                 until: self.now.addingTimeInterval(10))
            state.notice = Notice("Copied the field “Bank line” of “Visa”.", until: self.now.addingTimeInterval(5))
        }
        // A TOTP custom field is copied as its current code, never its secret.
        driver.press(.down) { $0.page = detail(.custom("f-3ds")) }
        let code = try? TOTP(parsing: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").code(at: now)
        driver.press(.enter, effects: [.copyToClipboard(SecretText(code ?? "?"))]) { state in
            state.clipboard = ClipboardCountdown(field: ClipboardCountdown.Field(name: "field “3-D Secure”"),
                                                 until: self.now.addingTimeInterval(10))
            state.notice = Notice("Copied the field “3-D Secure” of “Visa”.", until: self.now.addingTimeInterval(5))
        }
        driver.press(.home) { $0.page = detail(.entry("cardholder")) }
        driver.press(.up) // the first field: the page is at its top already
        driver.press(.end) { $0.page = .detail(DetailState(itemID: "h8", selected: .notes, scroll: 0)) }
    }

    func testAnEmptyFieldSaysWhyItIsNotCopied() {
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        state.list.selectedID = "i9"
        state.page = .detail(DetailState(itemID: "i9", selected: .entry("middle_name")))
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: now), [])
        XCTAssertEqual(state.notice?.text, "The field is empty: nothing to copy.")
        XCTAssertNil(state.clipboard)
    }

    /// A field another process removed while the cursor was on it: the cursor is on the first.
    func testTheCursorFallsBackToTheFirstFieldWhenItsFieldGoes() {
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        state.page = .detail(DetailState(itemID: "h8", selected: .custom("f-line")))
        var visa = Fixtures.visa
        visa.entry[custom: "f-line"] = nil
        let items = Fixtures.kindItems.map { $0.id == "h8" ? ScreenItem(visa) : $0 }
        _ = Update.apply(.reloaded(items: items, summary: Fixtures.summary), to: &state, now: now)
        let effects = Update.apply(.key(.enter), to: &state, now: now)
        XCTAssertEqual(effects, [.copyToClipboard("Alice Smith")], "the cardholder, not a secret that moved up")
    }

    // MARK: Forms

    func openForm(_ item: Item) -> Driver {
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        state.list.selectedID = item.id
        state.page = .detail(DetailState(itemID: item.id))
        let driver = Driver(state)
        _ = Update.apply(.key(.character("e")), to: &driver.state, now: now)
        return driver
    }

    /// ^N adds a field (label focused), Tab reaches its value, ^T steps its type, PgUp/PgDn move
    /// it, ^X removes the one focused; the save writes them in the order shown.
    func testCustomFieldsAreAddedTypedMovedAndRemoved() {
        let driver = openForm(Fixtures.visa)
        guard case .form(var form) = driver.state.page else { return XCTFail("no form") }
        driver.press(.control("n")) { state in
            form.addCustomField()
            state.page = .form(form)
        }
        XCTAssertEqual(form.focus, .customLabel("new-field-1"))
        XCTAssertEqual(form.custom.map(\.id), ["f-hint", "f-line", "f-3ds", "new-field-1"])
        driver.type("Branch")
        driver.press(.tab) { state in
            form.texts[.customLabel("new-field-1")] = TextField("Branch")
            form.focus = .customValue("new-field-1")
            state.page = .form(form)
        }
        driver.type("Elm St")
        driver.press(.control("t")) { state in
            form.texts[.customValue("new-field-1")] = TextField("Elm St")
            form.custom[3].type = "hidden"
            state.page = .form(form)
        }
        for type in ["url", "email", "totp", "date", "text"] {
            driver.press(.control("t")) { state in
                form.custom[3].type = type
                state.page = .form(form)
            }
        }
        driver.press(.pageUp) { state in
            form.custom.swapAt(2, 3)
            state.page = .form(form)
        }
        driver.press(.pageUp) { state in
            form.custom.swapAt(1, 2)
            state.page = .form(form)
        }
        XCTAssertEqual(form.custom.map(\.id), ["f-hint", "new-field-1", "f-line", "f-3ds"])
        driver.press(.pageDown) { state in
            form.custom.swapAt(1, 2)
            state.page = .form(form)
        }
        // Move to the hint field and remove it: the focus goes to the next field's label.
        for _ in 0..<5 { _ = Update.apply(.key(.backTab), to: &driver.state, now: now) }
        guard case .form(let moved) = driver.state.page else { return XCTFail("no form") }
        XCTAssertEqual(moved.focus, .customLabel("f-hint"))
        form.focus = .customLabel("f-hint")
        driver.press(.control("x")) { state in
            form.removeFocusedCustomField()
            state.page = .form(form)
        }
        XCTAssertEqual(form.focus, .customLabel("f-line"))
        XCTAssertEqual(form.custom.map(\.id), ["f-line", "new-field-1", "f-3ds"])

        var saved = Fixtures.visa
        saved.entry.custom = [Fixtures.visa.entry.custom[1],
                              CustomField(id: "new-field-1", label: "Branch", value: "Elm St", type: .text),
                              Fixtures.visa.entry.custom[2]]
        driver.press(.enter, effects: [.saveItem(saved, base: Fixtures.visa)]) { state in
            state.awaiting = AwaitedWork(.save)
        }
    }

    func testCustomFieldKeysSayWhyTheyDoNothingElsewhere() {
        let driver = openForm(Fixtures.visa)
        driver.press(.control("x")) { $0.notice = Notice("Only on a custom field (^N adds one).", until: self.now.addingTimeInterval(5)) }
        driver.press(.pageUp) { $0.notice = Notice("Only on a custom field (^N adds one).", until: self.now.addingTimeInterval(5)) }
        guard case .form(var form) = driver.state.page else { return XCTFail("no form") }
        form.focus = .customValue("f-hint")
        driver.state.page = .form(form)
        driver.press(.pageUp) { $0.notice = Notice("It is the first custom field.", until: self.now.addingTimeInterval(5)) }
        let unknown = openForm(Fixtures.future)
        unknown.press(.control("n")) { state in
            state.notice = Notice("This kind comes from a newer version: its fields are kept as they are.",
                                  until: self.now.addingTimeInterval(5))
        }
    }

    /// The new card's fields, in `ItemKind` order, then its custom field; the generator has no
    /// password to fill on a card unless a hidden field is focused.
    func testANewCardIsSavedWithItsFields() {
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        let keys: [Key] = [.character("N"), .character("c")] + "Visa".map(Key.character) + [.tab]
            + "Alice Smith".map(Key.character) + [.tab] + "4111".map(Key.character) + [.tab, .character("1"), .character("2"),
            .tab] + "2029".map(Key.character) + [.tab] + "737".map(Key.character) + [.control("n")]
            + "PIN hint".map(Key.character) + [.tab] + "the usual one".map(Key.character)
        for key in keys { _ = Update.apply(.key(key), to: &state, now: now) }
        XCTAssertEqual(Update.apply(.key(.control("g")), to: &state, now: now), [])
        XCTAssertEqual(state.notice?.text, "Only a password or a hidden field takes a generated password.")
        let expected = Item(id: "new", title: "Visa",
                            entry: Entry(kind: "card", fields: ["cardholder": "Alice Smith", "number": "4111",
                                                                "expiry_month": "12", "expiry_year": "2029", "code": "737"],
                                         custom: [CustomField(id: "new-field-1", label: "PIN hint", value: "the usual one")]),
                            created: Timestamp(now))
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: now), [.saveItem(expected, base: nil)])
    }

    /// An SSH key's "Confirm each use" is a checkbox, as Disabled is: it was free text, and `y` or
    /// `on` read as yes to the user and as no to the agent (which confirmed for yes, true, 1).
    /// Letters typed there write nothing; Space ticks it and the save writes "yes"; a key an older
    /// screen stored with "on" opens ticked, and one stored "no" unticked.
    func testAnSSHKeysConfirmEachUseIsACheckbox() throws {
        func key(confirm: String) -> Item {
            Item(id: "s12", title: "Deploy key", entry: Entry(kind: "ssh-key", fields: ["hosts": "github.com", "confirm": confirm]),
                 created: Fixtures.visa.created, modified: Fixtures.visa.modified)
        }
        let older = ItemForm(editing: key(confirm: "on"))
        XCTAssertTrue(older.isCheckbox(.kind("confirm")))
        XCTAssertTrue(older.isOn(.kind("confirm")), "an older spelling of yes")
        XCTAssertFalse(ItemForm(editing: key(confirm: "no")).isOn(.kind("confirm")))

        var form = ItemForm(editing: key(confirm: "no"))
        form.focus = .kind("confirm")
        var state = Fixtures.unlocked(items: Fixtures.kindItems + [ScreenItem(key(confirm: "no"))])
        state.page = .form(form)
        for key in "yes".map(Key.character) { _ = Update.apply(.key(key), to: &state, now: now) }
        guard case .form(let typed) = state.page else { return XCTFail("the form closed") }
        XCTAssertEqual(typed.text(.kind("confirm")), "", "letters were typed into the checkbox")
        XCTAssertFalse(typed.hasChanges)
        _ = Update.apply(.key(.character(" ")), to: &state, now: now)
        guard case .form(let ticked) = state.page else { return XCTFail("the form closed") }
        XCTAssertTrue(ticked.isOn(.kind("confirm")))
        let grid = Render.frame(state, size: .standard, now: now)
        XCTAssertTrue(grid.text.contains("Confirm each use  [x] yes"), grid.text)
        let effects = Update.apply(.key(.enter), to: &state, now: now)
        guard case .saveItem(let saved, _)? = effects.first else { return XCTFail("not saved: \(effects)") }
        XCTAssertEqual(saved.entry.fields["confirm"], FlagValue.on)
    }

    func testAHiddenFieldTakesAGeneratedPassword() {
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        for key: Key in [.character("N"), .character("n"), .control("n"), .tab, .control("t")] {
            _ = Update.apply(.key(key), to: &state, now: now)
        }
        XCTAssertEqual(Update.apply(.key(.control("g")), to: &state, now: now), [.generatePassword(GeneratorSettings())])
        _ = Update.apply(.passwordGenerated("Abcdefghijk23456789!"), to: &state, now: now)
        _ = Update.apply(.key(.enter), to: &state, now: now)
        guard case .form(let form) = state.page else { return XCTFail("no form") }
        XCTAssertEqual(form.text(.customValue("new-field-1")), "Abcdefghijk23456789!")
        XCTAssertTrue(form.isSecret(.customValue("new-field-1")))
    }

    /// Month, year, an empty custom label and a bad TOTP secret each show under their field.
    func testValidationShowsUnderEachField() {
        var form = ItemForm(kind: .card)
        form.texts[.title] = TextField("Visa")
        form.texts[.kind("expiry_month")] = TextField("13")
        form.texts[.kind("expiry_year")] = TextField("29")
        form.addCustomField()
        form.addCustomField()
        form.texts[.customLabel("new-field-2")] = TextField("OTP")
        form.custom[1].type = "totp"
        form.texts[.customValue("new-field-2")] = TextField("not base32!")
        var state = Fixtures.unlocked(items: Fixtures.kindItems)
        state.page = .form(form)
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: now), [])
        guard case .form(let shown) = state.page else { return XCTFail("no form") }
        XCTAssertEqual(shown.problems[.kind("expiry_month")], ["Must be a month from 1 to 12."])
        XCTAssertEqual(shown.problems[.kind("expiry_year")], ["Must be a year of four digits."])
        XCTAssertEqual(shown.problems[.customLabel("new-field-1")], ["Its label must not be empty."])
        XCTAssertEqual(shown.problems[.customValue("new-field-2")]?.count, 1)
        XCTAssertEqual(shown.focus, .kind("expiry_month"), "the first problem's field")
        XCTAssertNil(state.awaiting)
    }

    /// Editing keeps what the form does not show: a newer version's field of a card, and every
    /// field of a kind this version does not know (its title, tags and notes are all it edits).
    func testEditingKeepsWhatTheFormDoesNotShow() {
        var visa = Fixtures.visa
        visa.entry.fields["network"] = "visa"  // a field a newer version added to cards
        var state = Fixtures.unlocked(items: Fixtures.kindItems.map { $0.id == "h8" ? ScreenItem(visa) : $0 })
        state.page = .form(ItemForm(editing: visa))
        for key: Key in [.end, .character("!")] { _ = Update.apply(.key(key), to: &state, now: now) }
        var expected = visa
        expected.title = "Visa!"
        XCTAssertEqual(Update.apply(.key(.enter), to: &state, now: now), [.saveItem(expected, base: visa)])

        var future = Fixtures.unlocked(items: Fixtures.kindItems)
        future.page = .form(ItemForm(editing: Fixtures.future))
        guard case .form(let form) = future.page else { return XCTFail("no form") }
        XCTAssertEqual(form.fields, [.title, .tags, .notes])
        for key: Key in [.tab] + "new, tags".map(Key.character) + [.tab, .end] + " Edited.".map(Key.character) {
            _ = Update.apply(.key(key), to: &future, now: now)
        }
        var edited = Fixtures.future
        edited.tags = ["new", "tags"]
        edited.entry.notes = "Made on a newer device. Edited."
        XCTAssertEqual(Update.apply(.key(.enter), to: &future, now: now), [.saveItem(edited, base: Fixtures.future)])
    }

    /// The fields a form added get random ids when saved; the base's keep theirs.
    func testAddedFieldsGetNewIDsWhenSaved() {
        var item = Fixtures.visa
        item.entry.custom.append(CustomField(id: "new-field-1", label: "Branch", value: "Elm St"))
        var made = 0
        let saved = ItemForm.givingIDs(toFieldsAddedIn: item, over: Fixtures.visa) {
            made += 1
            return "fresh-\(made)"
        }
        XCTAssertEqual(saved.entry.custom.map(\.id), ["f-hint", "f-line", "f-3ds", "fresh-1"])
        let new = ItemForm.givingIDs(toFieldsAddedIn: item, over: nil) {
            made += 1
            return "fresh-\(made)"
        }
        XCTAssertEqual(new.entry.custom.map(\.id), ["fresh-2", "fresh-3", "fresh-4", "fresh-5"])
    }

    // MARK: Keys typed during a save

    /// A card saved with ↵, then `Esc n c` typed before the save ends: the form closes once saved,
    /// and a second card's form opens, as if the save had ended at once.
    func testKeysTypedDuringACardsSaveActAfterIt() {
        final class Vault {
            var state = Fixtures.unlocked(items: Fixtures.kindItems)
            var waiting: [Effect] = []
            var saved: [Item] = []

            func press(_ key: Key) { waiting += Update.apply(.key(key), to: &state, now: FakeClock.start) }

            func finish() {
                while let effect = waiting.first {
                    waiting.removeFirst()
                    guard case .saveItem(var item, _) = effect else { continue }
                    item.id = "new-\(saved.count + 1)"
                    saved.append(item)
                    waiting += Update.apply(.itemSaved(item), to: &state, now: FakeClock.start)
                }
            }
        }
        let keys: [Key] = [.character("N"), .character("c")] + "Visa".map(Key.character)
            + [.control("n")] + "Hint".map(Key.character) + [.enter, .escape, .character("N"), .character("c")]
            + "Amex".map(Key.character)
        let enter = keys.firstIndex(of: .enter) ?? 0
        let atOnce = Vault()
        for key in keys {
            atOnce.press(key)
            atOnce.finish()
        }
        guard case .form(let second) = atOnce.state.page else { return XCTFail("no second form: \(atOnce.state.page)") }
        XCTAssertEqual(second.kindName, "card")
        XCTAssertEqual(second.text(.title), "Amex")
        XCTAssertEqual(atOnce.saved.map(\.title), ["Visa"])
        XCTAssertEqual(atOnce.saved.first?.entry.custom.map(\.label), ["Hint"])
        for finishing in enter..<keys.count {
            let typed = Vault()
            for (index, key) in keys.enumerated() {
                typed.press(key)
                if index == finishing { typed.finish() }
            }
            typed.finish()
            assertState(typed.state, equals: atOnce.state)
        }
    }
}
