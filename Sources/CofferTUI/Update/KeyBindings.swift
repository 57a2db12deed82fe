import CofferCore

/// The key table: every binding of the screen. `Update` dispatches through it; the help overlay
/// and the hint line are drawn from it, so they cannot drift from what the keys do.
///
/// In contexts that take text, a printable key goes to the field unless a binding for it is
/// enabled there (Space toggles the Disabled field only when that field has the focus).
enum KeyBindings {
    static let browsing: Set<KeyContext> = [.list, .detail, .review, .devices, .health, .trash, .members, .vaults]
    static let typing: Set<KeyContext> = [.firstRun, .locked, .filter, .form, .generator]
    static let everywhere = Set(KeyContext.allCases)

    static let table: [KeyBinding] = [
        // Moving around.
        KeyBinding(keys: [.down, .character("j")], action: .moveDown, description: "Move down",
                   contexts: browsing.union([.kindChoice])),
        KeyBinding(keys: [.up, .character("k")], action: .moveUp, description: "Move up",
                   contexts: browsing.union([.kindChoice])),
        KeyBinding(keys: [.down], action: .moveDown, description: "Move down", contexts: [.filter]),
        KeyBinding(keys: [.up], action: .moveUp, description: "Move up", contexts: [.filter]),
        KeyBinding(keys: [.pageDown, .control("f")], action: .pageDown, description: "Page down",
                   contexts: browsing.union([.filter])),
        KeyBinding(keys: [.pageUp, .control("b")], action: .pageUp, description: "Page up",
                   contexts: browsing.union([.filter])),
        KeyBinding(keys: [.home, .character("g")], action: .moveToTop, description: "First row", contexts: browsing),
        KeyBinding(keys: [.end, .character("G")], action: .moveToBottom, description: "Last row", contexts: browsing),
        KeyBinding(keys: [.enter, .right, .character("l")], action: .open, description: "Open the item",
                   hint: "↵ open", contexts: [.list], disabledReason: needsSelection),
        KeyBinding(keys: [.enter, .right, .character("l")], action: .open, description: "Open the item",
                   hint: "↵ open", contexts: [.health], disabledReason: { state in
                       state.health?.rows.isEmpty == false ? nil : "No item is listed."
                   }),
        KeyBinding(keys: [.escape, .left, .character("h")], action: .back, description: "Back",
                   hint: "Esc back", contexts: [.detail, .review, .devices, .health, .trash, .members, .vaults]),

        // The list.
        KeyBinding(keys: [.character("/")], action: .startFilter,
                   description: "New filter as you type", hint: "/ filter", contexts: [.list]),
        KeyBinding(keys: [.enter], action: .keepFilter, description: "Keep filter, browse (opens the only match)",
                   hint: "↵ keep", contexts: [.filter]),
        KeyBinding(keys: [.escape], action: .clearFilter, description: "Clear the filter", hint: "Esc clear",
                   contexts: [.list, .filter], disabledReason: { state in
                       state.list.filter.isEmpty && !state.list.isFilterFocused ? "There is no filter to clear." : nil
                   }),
        KeyBinding(keys: [.character("t")], action: .toggleSort, description: "Sort: title / modified",
                   hint: "t sort", contexts: [.list]),
        KeyBinding(keys: [.character("K")], action: .cycleKindFilter, description: "One kind; K again: next",
                   contexts: [.list]),

        // Items.
        KeyBinding(keys: [.character("n")], action: .newItem, description: "New login (^K: kind)", hint: "n new",
                   contexts: [.list, .detail], hintContexts: [.list]),
        KeyBinding(keys: [.character("N")], action: .newItemOfKind, description: "New item, asks the kind",
                   contexts: [.list, .detail]),
        KeyBinding(keys: [.character("e")], action: .editItem, description: "Edit the item", hint: "e edit",
                   contexts: [.list, .detail], disabledReason: needsReadableItem),
        KeyBinding(keys: [.character("d")], action: .deleteItem, description: "To the trash (asks first)",
                   hint: "d delete", contexts: [.list, .detail], disabledReason: needsSelection),
        KeyBinding(keys: [.character("R")], action: .restoreEntry,
                   description: "Undo the last change of the fields (asks first; `coffer history` reaches older ones)",
                   contexts: [.detail], disabledReason: { state in
                       needsReadableItem(state) ?? (state.currentItem?.item?.history.isEmpty == true
                           ? "The item has no earlier entry." : nil)
                   }),
        // On the detail page ↵ copies any field, so the hint line names that instead of c and u.
        KeyBinding(keys: [.character("c")], action: .copyPassword, description: "Copy the password",
                   hint: "c copy pw", contexts: [.list], disabledReason: needsPassword),
        KeyBinding(keys: [.character("c")], action: .copyPassword, description: "Copy the password",
                   contexts: [.detail], disabledReason: needsPassword),
        KeyBinding(keys: [.character("u")], action: .copyUsername, description: "Copy the username",
                   hint: "u copy user", contexts: [.list], disabledReason: needsUsername),
        KeyBinding(keys: [.character("u")], action: .copyUsername, description: "Copy the username",
                   contexts: [.detail], disabledReason: needsUsername),
        KeyBinding(keys: [.character("o")], action: .copyOrigin, description: "Copy the first origin",
                   contexts: [.list, .detail], disabledReason: { state in
                       needsReadableItem(state) ?? (state.currentItem?.item?.origins.isEmpty == true
                           ? "The item has no origin." : nil)
                   }),
        KeyBinding(keys: [.character("T")], action: .copyTOTP, description: "Copy the TOTP code",
                   contexts: [.list, .detail], disabledReason: { state in
                       needsReadableItem(state) ?? state.currentItem?.item.flatMap(totpProblem)
                   }),
        KeyBinding(keys: [.enter], action: .copyField, description: "Copy the field at ▸",
                   hint: "↵ copy", contexts: [.detail], disabledReason: { state in
                       if let reason = needsReadableItem(state) { return reason }
                       guard case .detail(let detail) = state.page, let item = state.currentItem?.item,
                             let field = detail.selectedField(in: item) else { return "No field is selected." }
                       return field.copyProblem(in: item)
                   }),
        KeyBinding(keys: [.character("r")], action: .toggleReveal, description: "Reveal / hide secrets",
                   hint: "r reveal", contexts: [.detail, .review]),
        KeyBinding(keys: [.character("v")], action: .reviewConflicts, description: "Review merged items (⚑)",
                   hint: "v review", contexts: [.list, .detail], disabledReason: { state in
                       state.unreviewedCount == 0 ? "No merged item waits for review." : nil
                   }),

        // An item's files (on its detail page).
        // One hint for the three file keys, shown while a file can be added: w and x had their
        // own, shown only with ▸ on a file and cut at the line's end, and a had none, so the
        // page never said it held files.
        KeyBinding(keys: [.character("w")], action: .saveFile, description: "Save the file at ▸ to a path",
                   contexts: [.detail], disabledReason: needsArrivedFile),
        KeyBinding(keys: [.character("a")], action: .addFile, description: "Add a file (at most 16 MiB)",
                   hint: "w/a/x files", contexts: [.detail], disabledReason: { state in
                       needsReadableItem(state) ?? (state.currentItem?.item.map { $0.attachments.count >= Attachment.countLimit } == true
                           ? "An item holds at most \(Attachment.countLimit) files." : nil)
                   }),
        KeyBinding(keys: [.character("x")], action: .removeFile, description: "Remove the file at ▸ (asks first)",
                   contexts: [.detail], disabledReason: { needsFile($0) }),
        KeyBinding(keys: [.enter], action: .submitPath, description: "Save or add, at this path", hint: "↵ go",
                   contexts: [.pathPrompt], disabledReason: { state in
                       guard case .path(let prompt) = state.overlay, !prompt.path.text.isEmpty else { return "Type a path." }
                       return nil
                   }),
        KeyBinding(keys: [.escape], action: .cancelPath, description: "Cancel", hint: "Esc cancel",
                   contexts: [.pathPrompt]),

        // The kind of a new item.
        KeyBinding(keys: [.enter], action: .chooseKind, description: "New item of the kind marked", hint: "↵ choose",
                   contexts: [.kindChoice]),
        KeyBinding(keys: ItemKind.known.map(\.key), action: .chooseKind,
                   description: "New " + ItemKind.known.map { "\($0.key.displayName) \($0.label.lowercased())" }
                       .joined(separator: ", "),
                   hint: ItemKind.known.map(\.key.displayName).joined(separator: "/") + " kind", contexts: [.kindChoice],
                   isRemappable: false),
        KeyBinding(keys: [.escape], action: .cancelChoice, description: "Cancel", hint: "Esc cancel",
                   contexts: [.kindChoice]),

        // Conflict review.
        KeyBinding(keys: [.character(" "), .tab], action: .swapChoice, description: "Swap the value kept",
                   hint: "Space swap", contexts: [.review], disabledReason: needsReviewField),
        KeyBinding(keys: [.character("a"), .enter], action: .acceptReview,
                   description: "Accept item (clears ⚑)", hint: "a accept", contexts: [.review],
                   disabledReason: needsReviewRow),

        // Passphrase prompts.
        KeyBinding(keys: [.enter], action: .submitPassphrase, description: "Unlock", hint: "↵ unlock",
                   contexts: [.locked], disabledReason: notWhileBusy),
        KeyBinding(keys: [.enter], action: .submitPassphrase, description: "Next field, then create",
                   hint: "↵ create", contexts: [.firstRun], disabledReason: notWhileBusy),
        KeyBinding(keys: [.tab, .backTab, .up, .down], action: .switchPassphraseField,
                   description: "Switch field", contexts: [.firstRun]),
        // Not while the keys are being derived: Esc after Enter is a habit, not a wish to quit (^C still quits).
        KeyBinding(keys: [.escape], action: .clearOrQuit, description: "Clear, or quit if empty",
                   hint: "Esc quit", contexts: [.locked, .firstRun], disabledReason: notWhileBusy),

        // The item form.
        KeyBinding(keys: [.tab, .down], action: .nextField, description: "Next field", hint: "Tab next",
                   contexts: [.form]),
        KeyBinding(keys: [.backTab, .up], action: .previousField, description: "Previous field", contexts: [.form]),
        KeyBinding(keys: [.enter], action: .save, description: "Save", hint: "↵ save", contexts: [.form],
                   disabledReason: { $0.isSaving ? "Saving…" : nil }),
        KeyBinding(keys: [.escape], action: .cancelEdit, description: "Cancel (asks if changed)",
                   hint: "Esc cancel", contexts: [.form]),
        KeyBinding(keys: [.control("g")], action: .openGenerator, description: "Password generator",
                   hint: "^G generate", contexts: [.form], disabledReason: { state in
                       guard case .form(let form) = state.page, form.generatorField == nil else { return nil }
                       return "Only a password or a hidden field takes a generated password."
                   }),
        KeyBinding(keys: [.control("r")], action: .toggleReveal, description: "Reveal / hide secret fields",
                   hint: "^R reveal", contexts: [.form], disabledReason: { state in
                       guard case .form(let form) = state.page, !form.hasSecrets else { return nil }
                       return "Nothing here is masked."
                   }),
        KeyBinding(keys: [.control("k")], action: .changeKind, description: "Next kind (a new item)",
                   contexts: [.form], disabledReason: { state in
                       guard case .form(let form) = state.page, !form.isNew else { return nil }
                       return "A saved item keeps its kind."
                   }),
        KeyBinding(keys: [.control("n")], action: .addCustomField, description: "Add a custom field",
                   hint: "^N add field", contexts: [.form], disabledReason: { state in
                       guard case .form(let form) = state.page else { return nil }
                       if !form.editsFields {
                           return "This kind comes from a newer version: its fields are kept as they are."
                       }
                       return form.custom.count < ItemValidation.customFieldLimit
                           ? nil : "An item holds at most \(ItemValidation.customFieldLimit) custom fields."
                   }),
        KeyBinding(keys: [.control("x")], action: .removeCustomField, description: "Remove this custom field",
                   contexts: [.form], disabledReason: { needsCustomField($0) }),
        KeyBinding(keys: [.control("t")], action: .cycleCustomFieldType,
                   description: "This custom field's type (text, hidden…)", contexts: [.form],
                   disabledReason: { needsCustomField($0) }),
        KeyBinding(keys: [.pageUp], action: .moveCustomFieldUp, description: "Move this custom field up",
                   contexts: [.form], disabledReason: { needsCustomField($0, movedBy: -1) }),
        KeyBinding(keys: [.pageDown], action: .moveCustomFieldDown, description: "Move this custom field down",
                   contexts: [.form], disabledReason: { needsCustomField($0, movedBy: 1) }),
        KeyBinding(keys: [.control("j")], action: .insertNewline, description: "New line (notes)", contexts: [.form],
                   disabledReason: { state in
                       if case .form(let form) = state.page, form.focus == .notes { return nil }
                       return "Only the notes hold several lines."
                   }),
        KeyBinding(keys: [.character(" ")], action: .toggleCheckbox, description: "Toggle the checkbox",
                   contexts: [.form], disabledReason: { state in
                       if case .form(let form) = state.page, form.isCheckbox(form.focus) { return nil }
                       return "Only on a checkbox (Disabled, an SSH key's Confirm each use)."
                   }),

        // The generator.
        KeyBinding(keys: [.right, .character("+")], action: .longer, description: "Longer / more words",
                   hint: "→ longer", contexts: [.generator]),
        KeyBinding(keys: [.left, .character("-")], action: .shorter, description: "Shorter / fewer words",
                   hint: "← shorter", contexts: [.generator]),
        KeyBinding(keys: [.character("w")], action: .toggleWords, description: "Words or characters",
                   hint: "w words", contexts: [.generator]),
        KeyBinding(keys: [.character("1")], action: .toggleLowercase, description: "Lowercase letters on/off",
                   contexts: [.generator]),
        KeyBinding(keys: [.character("2")], action: .toggleUppercase, description: "Uppercase letters on/off",
                   contexts: [.generator]),
        KeyBinding(keys: [.character("3")], action: .toggleDigits, description: "Digits on/off",
                   contexts: [.generator]),
        KeyBinding(keys: [.character("4")], action: .toggleSymbols, description: "Symbols on/off",
                   contexts: [.generator]),
        KeyBinding(keys: [.character("g"), .character(" ")], action: .regenerate, description: "Generate another",
                   hint: "g again", contexts: [.generator]),
        KeyBinding(keys: [.enter], action: .usePassword, description: "Use this password", hint: "↵ use",
                   contexts: [.generator], disabledReason: { state in
                       if case .form(let form) = state.page, form.generator?.preview == nil {
                           return "Nothing generated yet."
                       }
                       return nil
                   }),
        KeyBinding(keys: [.escape], action: .closeGenerator, description: "Close without using it",
                   hint: "Esc cancel", contexts: [.generator]),

        // Devices.
        KeyBinding(keys: [.character("D")], action: .openDevices, description: "Devices of this account",
                   contexts: [.list, .detail]),
        KeyBinding(keys: [.character("i")], action: .inviteDevice, description: "Invite a new device with a one-time code",
                   hint: "i invite", contexts: [.devices], disabledReason: { state in
                       guard state.hasAccount else { return "This vault has no sync account to share." }
                       guard case .devices(let page) = state.page, page.invitation == nil else { return "An invitation is open." }
                       return nil
                   }),
        KeyBinding(keys: [.character("x")], action: .lockDevice, description: "Lock that device", hint: "x lock it",
                   contexts: [.devices], disabledReason: { Update.needsOtherVerifiedDevice($0) }),
        KeyBinding(keys: [.character("o")], action: .signOutDevice, description: "Sign that device out (asks first)",
                   hint: "o sign out", contexts: [.devices], disabledReason: { Update.needsOtherVerifiedDevice($0) }),
        KeyBinding(keys: [.character("X")], action: .removeDevice, description: "Remove it from the account (asks first)",
                   hint: "X remove", contexts: [.devices], disabledReason: { state in
                       guard case .devices(let page) = state.page, let device = page.current else { return "No device is selected." }
                       return device.isCurrent ? "That is this device." : nil
                   }),

        // A shared vault's members: the roster is not secret, so the locked page opens them too
        // (with F2: its printable keys are the passphrase's).
        KeyBinding(keys: [.character("M"), .function(2)], action: .openMembers, description: "Members of this vault",
                   contexts: [.list, .detail], disabledReason: needsSharedVault),
        KeyBinding(keys: [.function(2)], action: .openMembers, description: "Members of this vault",
                   hint: "F2 members", contexts: [.locked], disabledReason: { needsSharedVault($0) ?? notWhileBusy($0) }),
        KeyBinding(keys: [.character("I")], action: .inviteMember, description: "Invite a person with a one-time code",
                   hint: "I invite", contexts: [.members], disabledReason: needsInviter),
        KeyBinding(keys: [.character("i")], action: .showInviteCommand, description: "The command that invites a person",
                   hint: "i command", contexts: [.members], disabledReason: { state in
                       guard let share = state.summary.share, share.members.contains(where: \.isYou) else {
                           return "You are not a member of this vault's roster: you cannot invite anyone."
                       }
                       guard case .members(let page) = state.page, !page.showsInvitation else { return "The command is shown below." }
                       return nil
                   }),
        KeyBinding(keys: [.character("X")], action: .revokeMember, description: "Revoke that member (asks first)",
                   hint: "X revoke", contexts: [.members], disabledReason: needsOtherMember),

        // The vault picker: nothing on it is secret, so the locked page opens it too (with F3).
        KeyBinding(keys: [.character("V"), .function(3)], action: .openVaults, description: "Vaults: yours and shared",
                   contexts: [.list, .detail]),
        KeyBinding(keys: [.function(3)], action: .openVaults, description: "Vaults: yours and shared",
                   hint: "F3 vaults", contexts: [.locked], disabledReason: notWhileBusy),
        // From a form: its changes are given up only after a yes, as Esc asks.
        KeyBinding(keys: [.function(3)], action: .openVaults, description: "Vaults (asks first if changed)",
                   contexts: [.form], disabledReason: { $0.isSaving ? "Saving…" : nil }),
        KeyBinding(keys: [.enter, .right, .character("l")], action: .switchVault, description: "Open this vault",
                   hint: "↵ open", contexts: [.vaults], disabledReason: { state in
                       guard case .vaults(let page) = state.page, let choice = page.current else { return "No vault is listed yet." }
                       return choice.problem == nil ? nil : "This vault cannot be opened: \(TerminalText.message(choice.problem ?? ""))"
                   }),

        // The trash (issue 43): what `d` and `coffer rm` put aside, here and on other devices.
        KeyBinding(keys: [.character("Z")], action: .openTrash, description: "Trash: restore, empty",
                   contexts: [.list, .detail]),
        KeyBinding(keys: [.character("r"), .enter], action: .restoreFromTrash, description: "Restore the item at ▸",
                   hint: "r restore", contexts: [.trash], disabledReason: needsTrashedItem),
        KeyBinding(keys: [.character("E")], action: .emptyTrash,
                   description: "Empty the trash for good (asks first)",
                   hint: "E empty", contexts: [.trash], disabledReason: { $0.trashedItems.isEmpty ? "The trash is empty." : nil }),

        // Password health.
        KeyBinding(keys: [.character("H")], action: .openHealth, description: "Password health",
                   contexts: [.list, .detail]),

        // Confirmation.
        KeyBinding(keys: [.character("y")], action: .confirm, description: "Yes", hint: "y yes", contexts: [.confirm]),
        KeyBinding(keys: [.character("n"), .escape], action: .decline, description: "No", hint: "n no",
                   contexts: [.confirm]),

        // Everywhere.
        KeyBinding(keys: [.character("s"), .function(5)], action: .syncNow, description: "Sync now", hint: "s sync",
                   contexts: browsing, hintContexts: browsing.subtracting([.detail]), disabledReason: needsAccount),
        KeyBinding(keys: [.function(5)], action: .syncNow, description: "Sync now", contexts: [.locked, .filter, .form],
                   disabledReason: needsAccount),
        KeyBinding(keys: [.character("L")], action: .lock, description: "Lock now",
                   hint: "L lock", contexts: browsing, disabledReason: { $0.isLocked ? "The vault is locked." : nil }),
        KeyBinding(keys: [.character("?"), .function(1)], action: .help, description: "Help", hint: "? help",
                   contexts: browsing),
        KeyBinding(keys: [.function(1)], action: .help, description: "Help", hint: "F1 help", contexts: typing),
        KeyBinding(keys: [.escape, .character("?"), .character("q"), .function(1)], action: .closeHelp,
                   description: "Close the help", hint: "Esc close", contexts: [.help]),
        KeyBinding(keys: [.control("l")], action: .redraw, description: "Redraw the screen", contexts: everywhere),
        KeyBinding(keys: [.character("q")], action: .quit, description: "Quit", hint: "q quit", contexts: browsing),
    ]

    /// The binding `key` triggers in `context`, if any, with the configuration's keys (`map`).
    static func binding(for key: Key, in context: KeyContext, map: KeyMap = .standard) -> KeyBinding? {
        map.table.first { $0.contexts.contains(context) && $0.keys.contains(key) }
    }

    /// The bindings of `context`, in table order (what help lists).
    static func bindings(in context: KeyContext, map: KeyMap = .standard) -> [KeyBinding] {
        map.table.filter { $0.contexts.contains(context) }
    }

    /// The hint line: enabled bindings with a hint.
    static func hints(for state: ScreenState) -> [String] {
        let context = KeyContext.current(of: state)
        return bindings(in: context, map: state.settings.keys)
            .filter { $0.hintContexts?.contains(context) ?? true }
            .filter { $0.disabledReason(state) == nil }.compactMap(\.hint)
    }

    // MARK: Reasons

    static func needsSelection(_ state: ScreenState) -> String? {
        state.currentItem == nil ? "No item is selected." : nil
    }

    static func needsTrashedItem(_ state: ScreenState) -> String? {
        guard case .trash(let page) = state.page else { return "Only on the Trash view." }
        return state.trashedItems.indices.contains(page.cursor) ? nil : "The trash is empty."
    }

    static func needsReadableItem(_ state: ScreenState) -> String? {
        guard let item = state.currentItem else { return "No item is selected." }
        switch item.content {
        case .ready: return nil
        case .waitingForKey: return "The item is waiting for its key from another device."
        case .corrupt: return "The item cannot be read."
        }
    }

    static func needsPassword(_ state: ScreenState) -> String? {
        needsReadableItem(state) ?? (state.currentItem?.item?.entry.password.isEmpty == true ? "The item has no password." : nil)
    }

    static func needsUsername(_ state: ScreenState) -> String? {
        needsReadableItem(state) ?? (state.currentItem?.item?.entry.username.isEmpty == true ? "The item has no username." : nil)
    }

    /// Why an item gives no TOTP code, or nil when it does.
    static func totpProblem(_ item: Item) -> String? {
        do {
            return try item.totpGenerator() == nil ? "The item has no TOTP secret." : nil
        } catch {
            return error.description
        }
    }

    static func needsReviewRow(_ state: ScreenState) -> String? {
        if case .review(let review) = state.page, review.currentRow != nil { return nil }
        return "Nothing to review."
    }

    static func needsReviewField(_ state: ScreenState) -> String? {
        if let reason = needsReviewRow(state) { return reason }
        if case .review(let review) = state.page, review.currentField == nil {
            return "No field differs here, so nothing to swap: a accepts the merge."
        }
        return nil
    }

    /// Why the custom-field keys do nothing: the focus is not on a custom field (or, moving it by
    /// `offset`, it is already first or last).
    static func needsCustomField(_ state: ScreenState, movedBy offset: Int = 0) -> String? {
        guard case .form(let form) = state.page, let index = form.customIndex(form.focus.customID) else {
            return "Only on a custom field (^N adds one)."
        }
        guard form.custom.indices.contains(index + offset) else {
            return offset < 0 ? "It is the first custom field." : "It is the last custom field."
        }
        return nil
    }

    /// Why `x` does nothing: the cursor is not on a file.
    static func needsFile(_ state: ScreenState) -> String? {
        if let reason = needsReadableItem(state) { return reason }
        guard case .detail(let detail) = state.page, let item = state.currentItem?.item,
              detail.selectedField(in: item)?.attachment(in: item) != nil else {
            return state.currentItem?.item?.attachments.isEmpty == false ? "Move ▸ to a file first." : "The item has no file (a adds one)."
        }
        return nil
    }

    /// Why `w` does nothing: the cursor is not on a file, or its bytes are not here yet.
    static func needsArrivedFile(_ state: ScreenState) -> String? {
        if let reason = needsFile(state) { return reason }
        guard case .detail(let detail) = state.page, let item = state.currentItem?.item,
              let file = detail.selectedField(in: item)?.attachment(in: item) else { return nil }
        return state.arrivedFiles.contains(file.id) ? nil
            : "The file “\(TerminalText.line(file.name))” has not arrived from the server yet: it comes with a sync."
    }

    static func needsAccount(_ state: ScreenState) -> String? {
        if !state.hasVault { return "Create the vault first." }
        return state.hasAccount ? nil : "No sync account: run `coffer account login` first."
    }

    /// Why a change to the roster cannot be made from the Members page: it is signed with this
    /// person's keys (the vault unlocked, they a member) and sent with the vault's account.
    static func needsSigningMember(_ state: ScreenState, doing change: String, signing: String) -> String? {
        guard case .members = state.page, let share = state.summary.share else { return "No member is listed." }
        if state.isLocked { return "Unlock the vault first: \(signing)." }
        guard share.members.contains(where: \.isYou) else {
            return "You are not a member of this vault's roster: you cannot \(change)."
        }
        return state.hasAccount ? nil : "This vault has no sync account: it no longer syncs."
    }

    /// Why `M` does nothing: a personal vault has no members.
    static func needsSharedVault(_ state: ScreenState) -> String? {
        state.summary.share == nil
            ? "This is a personal vault: it has no members. `coffer --vault NAME` opens a shared one." : nil
    }

    /// Why `I` does nothing on the Members page.
    static func needsInviter(_ state: ScreenState) -> String? {
        if let reason = needsSigningMember(state, doing: "invite anyone", signing: "the invitation signs with your keys (or i: the command)") {
            return reason
        }
        guard case .members(let page) = state.page, page.invitation == nil else { return "An invitation is open." }
        return nil
    }

    /// Why `X` does nothing on the Members page: also not on oneself, nor during another revocation.
    static func needsOtherMember(_ state: ScreenState) -> String? {
        if let reason = needsSigningMember(state, doing: "revoke anyone", signing: "revoking signs with your keys") { return reason }
        guard case .members(let page) = state.page, let share = state.summary.share else { return "No member is listed." }
        if let name = page.revoking { return "Revoking \u{201C}\(TerminalText.name(name))\u{201D}…" }
        guard !share.members.isEmpty, !share.members[min(page.cursor, share.members.count - 1)].isYou else {
            return "That is you: `coffer --vault NAME share leave` takes you out."
        }
        return nil
    }

    static func notWhileBusy(_ state: ScreenState) -> String? {
        state.busy == nil ? nil : "Please wait: \(state.busy?.label ?? "")"
    }
}
