import CofferCore
import Foundation

/// The item form and its password generator.
extension Update {
    static func applyForm(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        switch event {
        case .itemSaved(let item, let mergedConflicts):
            state.localWrites += 1
            if let index = state.items.firstIndex(where: { $0.id == item.id }) {
                state.items[index].content = .ready(item)
                state.items[index].hasLocalChange = true
            } else if !state.isLocked {
                state.items.append(ScreenItem(item, hasLocalChange: true))
            }
            state.notice = Notice(savedMessage(item, mergedConflicts: mergedConflicts), until: now.addingTimeInterval(Notice.lifetime))
            let effects = [.reload] + schedule(state.scheduler.handle(.localChange, now: now), in: &state, now: now)
            // The form's own save: its page comes now, then the keys typed while it ran act on it.
            guard let keys = endAwaiting(.save, in: &state) else { return effects }
            state.list.selectedID = item.id
            if case .form = state.page {
                state.page = .detail(DetailState(itemID: item.id))
            }
            keepSelectionVisible(in: &state)
            return effects + replay(keys, in: &state, now: now)
        case .itemSaveFailed(let failure):
            guard let keys = endAwaiting(.save, in: &state) else {
                // A save no form waits for (`R` on the detail page): said in the notice line.
                if case .form = state.page {} else {
                    state.notice = Notice("Not saved: \(failure.sentence)", isError: true, until: now.addingTimeInterval(Notice.lifetime))
                }
                return []
            }
            guard case .form(var form) = state.page else { return [] }
            // The form stays with its error; what was typed for the page after it is dropped.
            if !keys.isEmpty {
                state.notice = Notice("Not saved, so the form stays open; the keys typed meanwhile were not used.",
                                      isError: true, until: now.addingTimeInterval(Notice.lifetime))
            }
            switch failure {
            case .invalid(let problems): place(problems, in: &form)
            case .removedMeanwhile: offerToKeepAsNew(&form, in: &state, now: now)
            case .other(let message): form.formProblems = [message]
            }
            state.page = .form(form)
            return []
        case .passwordGenerated(let password):
            guard case .form(var form) = state.page, form.generator != nil else { return [] }
            form.generator?.preview = password
            form.generator?.problem = nil
            state.page = .form(form)
            return []
        default:
            return []
        }
    }

    static func performForm(_ action: Action, in state: inout ScreenState, now: Date) -> [Effect] {
        guard case .form(var form) = state.page else { return [] }
        var effects: [Effect] = []
        switch action {
        case .nextField, .previousField:
            let fields = form.fields
            let index = fields.firstIndex(of: form.focus) ?? 0
            let step = action == .nextField ? 1 : fields.count - 1
            form.focus = fields[(index + step) % fields.count]
        case .save:
            effects = save(&form, state: &state, now: now)
            if effects.isEmpty, form.problems.isEmpty, form.formProblems.isEmpty, state.overlay == nil {
                // Nothing changed: leave as after a save.
                state.page = .form(form)
                leaveForm(&state)
                return []
            }
        case .cancelEdit:
            if form.hasChanges {
                state.overlay = .confirm(Confirmation(question: "Discard your changes?", action: .discardChanges,
                                                      askedOn: state.page.identity))
                return []
            }
            leaveForm(&state)
            return []
        case .openGenerator:
            guard let target = form.generatorField else { return [] }
            let generator = GeneratorState()
            form.generator = generator
            form.generatorTarget = target
            effects = [.generatePassword(generator.settings)]
        case .insertNewline:
            form.texts[.notes]?.insert("\n")
            form.hasChanges = true
        case .changeKind:
            form.changeKind(to: form.kind.map(ItemKind.following) ?? .login)
        case .toggleCheckbox:
            if form.focus == .disabled {
                form.isDisabled.toggle()
            } else {
                form.texts[form.focus] = TextField(form.isOn(form.focus) ? FlagValue.off : FlagValue.on)
            }
            form.hasChanges = true
        case .usePassword:
            guard let preview = form.generator?.preview, let target = form.generatorTarget else { return [] }
            form.texts[target]?.replace(with: preview)
            form.problems[target] = nil
            form.generator = nil
            form.generatorTarget = nil
            form.hasChanges = true
        case .closeGenerator:
            form.generator = nil
            form.generatorTarget = nil
        case .addCustomField:
            form.addCustomField()
        case .removeCustomField:
            form.removeFocusedCustomField()
        case .moveCustomFieldUp, .moveCustomFieldDown:
            form.moveFocusedCustomField(by: action == .moveCustomFieldUp ? -1 : 1)
        case .cycleCustomFieldType:
            form.cycleFocusedCustomFieldType()
        case .longer, .shorter, .toggleWords, .toggleLowercase, .toggleUppercase, .toggleDigits, .toggleSymbols,
             .regenerate:
            guard var generator = form.generator else { return [] }
            if let problem = adjust(&generator.settings, action) {
                generator.problem = problem
            } else {
                generator.problem = nil
                effects = [.generatePassword(generator.settings)]
            }
            form.generator = generator
        default:
            break
        }
        state.page = .form(form)
        return effects
    }

    /// Changes the generator's settings; returns why not when the change would leave nothing to draw from.
    static func adjust(_ settings: inout GeneratorSettings, _ action: Action) -> String? {
        func toggle(_ set: PasswordGenerator.CharacterClasses) -> String? {
            let next = settings.classes.symmetricDifference(set)
            guard !next.isEmpty else { return "Keep at least one kind of character." }
            settings.classes = next
            return nil
        }
        switch action {
        case .longer, .shorter:
            let step = action == .longer ? 1 : -1
            switch settings.mode {
            case .characters:
                settings.length = min(GeneratorSettings.lengthRange.upperBound,
                                      max(GeneratorSettings.lengthRange.lowerBound, settings.length + step))
            case .words:
                settings.words = min(GeneratorSettings.wordsRange.upperBound,
                                     max(GeneratorSettings.wordsRange.lowerBound, settings.words + step))
            }
        case .toggleWords:
            settings.mode = settings.mode == .characters ? .words : .characters
        case .toggleLowercase:
            return toggle(.lowercase)
        case .toggleUppercase:
            return toggle(.uppercase)
        case .toggleDigits:
            return toggle(.digits)
        case .toggleSymbols:
            return toggle(.symbols)
        default:
            break
        }
        return nil
    }

    /// What the notice says after a save; a merge with another process's change is spelled out.
    static func savedMessage(_ item: Item, mergedConflicts: [String]?) -> String {
        let title = TerminalText.line(item.title)
        guard let conflicts = mergedConflicts else { return "Saved “\(title)”." }
        guard !conflicts.isEmpty else { return "Saved “\(title)”, merged with a change made elsewhere meanwhile." }
        // A custom field goes by its label (its merge name is its id).
        let names = conflicts.map { name in
            ItemField(rawValue: name).customID.flatMap { item.entry[custom: $0] }.map { "“\(TerminalText.line($0.label))”" }
                ?? TerminalText.line(name)
        }
        return "Saved “\(title)”; \(names.joined(separator: ", ")) also changed elsewhere: yours kept, "
            + "the other value in history (⚑, v to review)."
    }

    /// The item being edited is gone (another process removed it): ask whether to keep the form's
    /// version as a new item rather than lose what was typed.
    static func offerToKeepAsNew(_ form: inout ItemForm, in state: inout ScreenState, now: Date) {
        let (item, problems) = formItem(form, now: now)
        guard problems.isEmpty else { return place(problems, in: &form) }
        state.overlay = .confirm(Confirmation(
            question: "“\(TerminalText.name(item.title))” was removed elsewhere. Keep your version as a new item?",
            action: .keepAsNewItem(item), askedOn: .form(itemID: form.itemID)))
    }

    /// Validates the form; returns the save effect, or none with the problems placed under their fields.
    static func save(_ form: inout ItemForm, state: inout ScreenState, now: Date) -> [Effect] {
        form.problems = [:]
        form.formProblems = []
        if let id = form.itemID {
            guard form.hasChanges else { return [] }
            guard state.item(id) != nil else {
                // Removed by another process while the form was open (the list already knows).
                offerToKeepAsNew(&form, in: &state, now: now)
                return []
            }
        }
        let (item, problems) = formItem(form, now: now)
        guard problems.isEmpty else {
            place(problems, in: &form)
            return []
        }
        state.awaiting = AwaitedWork(.save)
        return [.saveItem(item, base: form.base)]
    }

    /// The item the form describes (its base with the form's fields), and what is wrong with it.
    ///
    /// Only the fields the form shows are written: a newer version's members, and every field of
    /// a kind this version does not know (only its title, tags and notes are edited), stay as the
    /// base has them.
    static func formItem(_ form: ItemForm, now: Date) -> (item: Item, problems: [FieldProblem]) {
        // A new item gets its real id from the runtime; this one only has to pass validation.
        var item = form.base ?? Item(id: "new", title: "", entry: Entry(kind: form.kindName), created: Timestamp(now))
        item.title = form.text(.title)
        item.tags = ItemForm.list(form.text(.tags))
        item.entry.notes = form.text(.notes)
        var problems: [FieldProblem] = []
        if let kind = form.kind {
            for field in kind.fields where field.name != "totp" {
                item.entry[field: field.name] = form.text(.kind(field.name))
            }
            if kind == .login {
                let totp = form.text(.totp).trimmingCharacters(in: .whitespacesAndNewlines)
                // The stored text stays as it was unless the secret changed: no history entry for blanks.
                if totp != (item.entry.totp ?? "").trimmingCharacters(in: .whitespacesAndNewlines) {
                    item.entry.totp = totp.isEmpty ? nil : totp
                }
            }
            item.origins = ItemForm.list(form.text(.origins))
            item.disabled = form.isDisabled
            item.entry.custom = form.custom.map { row in
                CustomField(id: row.id, label: form.text(.customLabel(row.id)), value: form.text(.customValue(row.id)),
                            typeName: row.type)
            }
        }
        problems += ItemValidation.problems(in: item)
        // A secret that yields no code is refused here as `add`/`edit --totp` refuse it; a PNG's path
        // is read by the runtime when it saves (`TOTPImageField`).
        if TOTP.imagePath(in: item.entry.totp ?? "") == nil {
            do {
                _ = try item.totpGenerator()
            } catch {
                if case .invalidTOTP(let problem) = error {
                    problems.append(FieldProblem(field: "entry.totp", reason: problem.description))
                }
            }
        }
        for (index, field) in item.entry.custom.enumerated() where field.fieldType == .totp && !field.value.isEmpty {
            do {
                _ = try TOTP(parsing: field.value)
            } catch {
                problems.append(FieldProblem(field: "custom[\(index)].value", reason: error.description))
            }
        }
        return (item, problems)
    }

    /// Puts each problem under the field it names, and moves the focus to the first one.
    static func place(_ problems: [FieldProblem], in form: inout ItemForm) {
        form.problems = [:]
        form.formProblems = []
        for problem in problems {
            let (field, message) = describe(problem, in: form)
            if let field { form.problems[field, default: []].append(message) } else { form.formProblems.append(message) }
        }
        let fields = form.fields
        if let first = fields.first(where: { form.problems[$0] != nil }) { form.focus = first }
    }

    /// The form field a vault problem belongs to, and the message shown under it.
    static func describe(_ problem: FieldProblem, in form: ItemForm) -> (ItemForm.Field?, String) {
        let reason = problem.reason.prefix(1).uppercased() + problem.reason.dropFirst() + "."
        let name = problem.field
        func indexed(_ prefix: String, _ noun: String) -> String? {
            guard name.hasPrefix(prefix + "["), let index = Int(name.dropFirst(prefix.count + 1).dropLast()) else {
                return nil
            }
            return "The \(ordinal(index + 1)) \(noun) \(problem.reason)."
        }
        let fields = form.fields
        switch name {
        case "title": return (.title, reason)
        case "entry.notes": return (.notes, reason)
        default:
            if name.hasPrefix("entry."), fields.contains(.kind(String(name.dropFirst("entry.".count)))) {
                return (.kind(String(name.dropFirst("entry.".count))), reason)
            }
            if let message = indexed("origins", "origin"), fields.contains(.origins) { return (.origins, message) }
            if let message = indexed("tags", "tag") { return (.tags, message) }
            // custom[3].label, custom[3].value, custom[3].id, custom[3].type
            if name.hasPrefix("custom["), let close = name.firstIndex(of: "]"),
               let index = Int(name[name.index(name.startIndex, offsetBy: 7)..<close]), form.custom.indices.contains(index) {
                let id = form.custom[index].id
                let member = name[name.index(after: close)...].drop { $0 == "." }
                return (member == "value" ? .customValue(id) : .customLabel(id), "Its \(member) \(problem.reason).")
            }
            return (nil, problem.description.prefix(1).uppercased() + problem.description.dropFirst() + ".")
        }
    }

    static func ordinal(_ number: Int) -> String {
        let suffix: String
        switch (number % 10, number % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(number)\(suffix)"
    }

    static func typeForm(_ key: Key, in state: inout ScreenState) -> [Effect] {
        // A checkbox takes Space, not text: "Confirm each use" was free text, and `y` meant no.
        guard case .form(var form) = state.page, !form.isCheckbox(form.focus), !state.isSaving else { return [] }
        guard form.texts[form.focus]?.edit(with: key) == true else { return [] }
        form.hasChanges = true
        form.problems[form.focus] = nil
        state.page = .form(form)
        return []
    }

    /// Back to where the form was opened from: the item's detail, or the list for a new item.
    static func leaveForm(_ state: inout ScreenState) {
        guard case .form(let form) = state.page else { return }
        if let id = form.itemID, state.item(id) != nil {
            state.page = .detail(DetailState(itemID: id))
        } else {
            state.page = .list
        }
    }
}
