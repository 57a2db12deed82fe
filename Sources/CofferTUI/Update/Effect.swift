import CofferCore
import CofferSync

/// Work `Update` asks the runtime to do; each ends by posting a `ScreenEvent`.
enum Effect: Sendable, Equatable {
    /// Calibrate the KDF (unless given) and create the vault, left unlocked.
    case createVault(passphrase: SecretText)
    case unlock(passphrase: SecretText)
    /// Drop the keys now.
    case lockVault
    /// A shared vault's new epoch arrived and the engine locked the vault (§17): unlock it again
    /// with the passphrase keys this screen kept, which takes the new keys → `.reload`, or
    /// `.newKeysNeedUnlock` when none are kept.
    case takeNewKeys
    /// Read the counts, and the items when unlocked → `.reloaded`.
    case reload
    /// Store the item → `.itemSaved`. `base` is the version the edit was made from (merged into
    /// the current one if that changed since); nil for a new item, which gets its id from the runtime.
    case saveItem(Item, base: Item?)
    /// Moves the item to the trash (`d`; issue 43): an edit, undone from the Trash view.
    case deleteItem(id: String, title: String)
    /// Takes the item out of the trash (`r` on the Trash view).
    case restoreItem(id: String, title: String)
    /// Removes every item in the trash for good (`E` on the Trash view, after a yes).
    case emptyTrash
    /// Write the item's file to `path` (0600; an existing file only when `replacing`) →
    /// `.fileSaved`, `.fileExists` or `.operationFailed` (not awaited, so not `.fileActionFailed`).
    case saveFile(itemID: String, fileID: String, path: String, replacing: Bool)
    /// Read the file at `path` (at most 16 MiB) and keep it with the item → `.filesChanged` or `.fileActionFailed`.
    case addFile(itemID: String, path: String)
    /// Remove the item's file → `.filesChanged` or `.fileActionFailed`.
    case removeFile(itemID: String, fileID: String)
    case generatePassword(GeneratorSettings)
    case copyToClipboard(SecretText)
    /// Clear the clipboard if it still holds what we put there.
    case clearClipboard
    case startSync(SyncScheduler.Trigger)
    case loadReviews
    case resolveReview(ConflictReview)
    /// List the account's devices → `.devicesLoaded`.
    case loadDevices
    /// Seal a message to a device and sync to send it → `.deviceActionFinished`.
    case sendToDevice(MessageTopic, id: String, name: String)
    /// Remove a device's record from the account → `.deviceActionFinished`.
    case removeDevice(id: String, name: String)
    /// Open a rendezvous for a new device → `.invitationOpened`, then `.invitationClaimed` (or
    /// `.invitationFinished` when it fails or expires).
    case openInvitation
    /// Answer the claim (the sync account sealed to the claimant, or a refusal) → `.invitationFinished`.
    case answerInvitation(InvitationTicket, allow: Bool)
    /// Open a rendezvous for a person to join the shared vault → `.memberInvitationOpened`, then
    /// `.memberClaimed` (or `.memberInvitationFinished` when it fails or expires).
    case openMemberInvitation
    /// Answer the claim: the person added to the roster and the grant sealed to them, or a refusal
    /// → `.memberInvitationFinished`.
    case answerMemberInvitation(MemberTicket, allow: Bool)
    /// Take the member out of the shared vault on the screen (signed with the person's kept
    /// passphrase keys' member secrets) → `.memberRevoked` or `.memberRevokeFailed`.
    case revokeMember(id: String, name: String)
    /// Read the personal vault and the shared vaults beside it, locked (`VaultChoice`) → `.vaultsLoaded`.
    case loadVaults
    /// Show the vault at `path` instead: opened with the passphrase keys kept from this screen's
    /// unlock when they fit, else locked → `.vaultSwitched` or `.vaultSwitchFailed`.
    case switchVault(path: String)
    /// Check the readable items' passwords (weak, reused, old) off the loop → `.healthChecked`.
    case checkHealth
    /// Repaint every cell (Ctrl-L, after a resize).
    case redraw
    /// Close the screen; `ScreenState.exitCode` holds the code.
    case quit
}
