import CofferCore
import XCTest
@testable import CofferTUI

/// The item form: editing, validation in place, the generator.
final class FormUpdateTests: XCTestCase {
    func editing(_ item: Item) -> Driver {
        var state = Fixtures.unlocked()
        state.list.selectedID = item.id
        state.page = .detail(DetailState(itemID: item.id))
        return Driver(state)
    }

    func testEditSavesTheChangedItemAndShowsItsDetail() {
        let driver = editing(Fixtures.bank)
        var form = ItemForm(editing: Fixtures.bank)
        driver.press(.character("e")) { $0.page = .form(form) }
        driver.press(.tab) { state in
            form.focus = .username
            state.page = .form(form)
        }
        driver.press(.backspace) { state in
            form.texts[.username] = TextField("alice.smit")
            form.hasChanges = true
            state.page = .form(form)
        }
        var saved = Fixtures.bank
        saved.entry.username = "alice.smit"
        driver.press(.enter, effects: [.saveItem(saved, base: Fixtures.bank)]) { state in
            state.awaiting = AwaitedWork(.save)
        }
        driver.clock.advance(1)
        saved.modified = Timestamp(driver.clock.now)
        driver.send(.itemSaved(saved), effects: [.reload]) { state in
            state.awaiting = nil
            state.localWrites = 1
            state.items[1] = ScreenItem(saved, hasLocalChange: true, hasConflict: true)
            state.page = .detail(DetailState(itemID: "b2"))
            state.notice = Notice("Saved “Bank”.", until: driver.clock.now.addingTimeInterval(5))
            _ = state.scheduler.handle(.localChange, now: driver.clock.now)
        }
    }

    func testValidationMessagesShowUnderTheirFields() {
        let driver = Driver(Fixtures.unlocked())
        driver.press(.character("n")) { $0.page = .form(ItemForm()) }
        driver.type("   ")
        var form = ItemForm()
        form.texts[.title] = TextField("   ")
        form.hasChanges = true
        form.texts[.origins] = TextField("ok.example, " + String(repeating: "x", count: 501))
        driver.state.page = .form(form)
        driver.press(.enter) { state in
            form.problems = [
                .title: ["Must not be empty."],
                .origins: ["The 2nd origin is 501 characters long, the limit is 500."],
            ]
            form.focus = .title
            state.page = .form(form)
        }
        // Typing into a field clears its message.
        driver.press(.character("X")) { state in
            form.texts[.title] = TextField("   X")
            form.problems[.title] = nil
            state.page = .form(form)
        }
    }

    func testANewItemIsSavedWithItsFields() {
        let driver = Driver(Fixtures.unlocked())
        for key in [Key.character("n")] { _ = Update.apply(.key(key), to: &driver.state, now: driver.clock.now) }
        driver.type("Forge")
        _ = Update.apply(.key(.tab), to: &driver.state, now: driver.clock.now)
        driver.type("me")
        for _ in 0..<2 { _ = Update.apply(.key(.tab), to: &driver.state, now: driver.clock.now) }
        driver.type(" jbsw y3dp ehpk 3pxp ")
        _ = Update.apply(.key(.tab), to: &driver.state, now: driver.clock.now)
        driver.type("forge.example, , git.example")
        _ = Update.apply(.key(.tab), to: &driver.state, now: driver.clock.now)
        driver.type("dev")
        let expected = Item(id: "new", title: "Forge", origins: ["forge.example", "git.example"], tags: ["dev"],
                            entry: Entry(username: "me", totp: "jbsw y3dp ehpk 3pxp"), created: Timestamp(driver.clock.now))
        let effects = Update.apply(.key(.enter), to: &driver.state, now: driver.clock.now)
        XCTAssertEqual(effects, [.saveItem(expected, base: nil)])
    }

    func testTheGeneratorFillsThePassword() {
        let driver = editing(Fixtures.mail)
        var form = ItemForm(editing: Fixtures.mail)
        _ = Update.apply(.key(.character("e")), to: &driver.state, now: driver.clock.now)
        driver.press(.control("g"), effects: [.generatePassword(GeneratorSettings())]) { state in
            form.generator = GeneratorState()
            form.generatorTarget = .password
            state.page = .form(form)
        }
        driver.send(.passwordGenerated("Abcdefghijk23456789!")) { state in
            form.generator?.preview = "Abcdefghijk23456789!"
            state.page = .form(form)
        }
        driver.press(.character("w"), effects: [.generatePassword(GeneratorSettings(mode: .words))]) { state in
            form.generator?.settings.mode = .words
            state.page = .form(form)
        }
        driver.press(.right, effects: [.generatePassword(GeneratorSettings(mode: .words, words: 7))]) { state in
            form.generator?.settings.words = 7
            state.page = .form(form)
        }
        driver.send(.passwordGenerated("a-b-c-d-e-f-g")) { state in
            form.generator?.preview = "a-b-c-d-e-f-g"
            state.page = .form(form)
        }
        driver.press(.enter) { state in
            form.generator = nil
            form.generatorTarget = nil
            form.texts[.password] = TextField("a-b-c-d-e-f-g")
            form.hasChanges = true
            state.page = .form(form)
        }
    }

    func testTheGeneratorKeepsAtLeastOneCharacterClass() {
        var settings = GeneratorSettings(classes: [.digits])
        XCTAssertEqual(Update.adjust(&settings, .toggleDigits), "Keep at least one kind of character.")
        XCTAssertEqual(settings.classes, [.digits])
        XCTAssertNil(Update.adjust(&settings, .toggleSymbols))
        XCTAssertEqual(settings.classes, [.digits, .symbols])
    }

    func testCancellingWithChangesAsksFirst() {
        let driver = editing(Fixtures.bank)
        _ = Update.apply(.key(.character("e")), to: &driver.state, now: driver.clock.now)
        driver.type("!")
        driver.press(.escape) { state in
            state.overlay = .confirm(Confirmation(question: "Discard your changes?", action: .discardChanges,
                                                  askedOn: .form(itemID: "b2")))
        }
        driver.press(.character("y")) { state in
            state.overlay = nil
            state.page = .detail(DetailState(itemID: "b2"))
        }
    }

    func testSpaceTogglesDisabledOnlyOnThatField() {
        let driver = editing(Fixtures.bank)
        var form = ItemForm(editing: Fixtures.bank)
        _ = Update.apply(.key(.character("e")), to: &driver.state, now: driver.clock.now)
        driver.press(.character(" ")) { state in
            form.texts[.title] = TextField("Bank ")
            form.hasChanges = true
            state.page = .form(form)
        }
        driver.press(.backTab) { state in
            form.focus = .disabled
            state.page = .form(form)
        }
        driver.press(.character(" ")) { state in
            form.isDisabled = true
            state.page = .form(form)
        }
    }

    func testAnUnchangedEditJustGoesBack() {
        let driver = editing(Fixtures.bank)
        _ = Update.apply(.key(.character("e")), to: &driver.state, now: driver.clock.now)
        driver.press(.enter) { $0.page = .detail(DetailState(itemID: "b2")) }
    }

    func testTheVaultsOwnValidationErrorsLandInTheForm() {
        let driver = editing(Fixtures.bank)
        _ = Update.apply(.key(.character("e")), to: &driver.state, now: driver.clock.now)
        guard case .form(var form) = driver.state.page else { return XCTFail("no form") }
        driver.state.awaiting = AwaitedWork(.save)
        driver.send(.itemSaveFailed(.invalid([FieldProblem(field: "entry.notes", reason: "contains a NUL character"),
                                              FieldProblem(field: "history", reason: "has more than 100 entries")]))) { state in
            state.awaiting = nil
            form.problems = [.notes: ["Contains a NUL character."]]
            form.formProblems = ["History has more than 100 entries."]
            form.focus = .notes
            state.page = .form(form)
        }
    }
}
