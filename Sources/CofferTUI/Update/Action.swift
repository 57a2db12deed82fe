/// What a key does, apart from which key it is (the key table maps one to the other).
enum Action: String, Sendable, Hashable, CaseIterable {
    // Moving around.
    case moveUp, moveDown, pageUp, pageDown, moveToTop, moveToBottom, open, back
    // The list.
    case startFilter, keepFilter, clearFilter, toggleSort, cycleKindFilter
    // Items.
    case newItem, newItemOfKind, editItem, deleteItem, copyPassword, copyUsername, copyOrigin, copyTOTP, copyField, toggleReveal
    case restoreEntry
    // The kind of a new item.
    case chooseKind, cancelChoice
    // Everywhere.
    case syncNow, reviewConflicts, lock, help, closeHelp, quit, redraw
    // Passphrase prompts.
    case submitPassphrase, switchPassphraseField, clearOrQuit
    // The item form.
    case nextField, previousField, save, cancelEdit, openGenerator, insertNewline, toggleCheckbox, changeKind
    case addCustomField, removeCustomField, moveCustomFieldUp, moveCustomFieldDown, cycleCustomFieldType
    // The generator.
    case longer, shorter, toggleWords, toggleLowercase, toggleUppercase, toggleDigits, toggleSymbols
    case regenerate, usePassword, closeGenerator
    // Conflict review.
    case swapChoice, acceptReview
    // Devices.
    case openDevices, lockDevice, signOutDevice, removeDevice, inviteDevice
    // An item's files.
    case saveFile, addFile, removeFile, submitPath, cancelPath
    // A shared vault's members.
    case openMembers, showInviteCommand, inviteMember, revokeMember
    // The vault picker.
    case openVaults, switchVault
    // Password health.
    case openHealth
    // The trash (issue 43).
    case openTrash, restoreFromTrash, emptyTrash
    // Confirmation.
    case confirm, decline
}
