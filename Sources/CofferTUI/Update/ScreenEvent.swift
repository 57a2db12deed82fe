import CofferCore
import CofferSync
import Foundation

/// Something that happened: a key, the clock, or the end of work the runtime ran for an `Effect`.
enum ScreenEvent: Sendable, Equatable {
    /// The screen opened (sync starts when an account is set).
    case started
    case key(Key)
    case resized(Size)
    /// The clock moved (auto-lock, clipboard clearing, scheduled syncs, notices).
    case tick
    /// SIGINT or SIGTERM: close as after `q`.
    case terminationRequested(exitCode: Int32)

    case vaultCreated(VaultSummary)
    case vaultCreationFailed(String)
    case unlocked(items: [ScreenItem], summary: VaultSummary)
    /// The unlock's listing so far (every item once `isComplete`), after `.unlocked` showed the first.
    case itemsOpened([ScreenItem], isComplete: Bool)
    case unlockFailed(UnlockFailure)
    /// Another process committed to the vault (a `coffer add`, a scheduled `coffer sync`).
    case vaultChangedElsewhere
    /// Fresh counts, and the items when the vault is unlocked. `writesSeen`: this screen's own
    /// saves and deletions (`ScreenState.localWrites`) when the reload began; a listing begun
    /// before the last of them may lack it, so its items are not taken (a newer reload follows).
    case reloaded(items: [ScreenItem]?, summary: VaultSummary, writesSeen: Int? = nil)
    /// `mergedConflicts` is nil when the edit applied as made; otherwise it was merged into a version
    /// another process saved meanwhile, and lists the fields both changed (the edit's value kept).
    case itemSaved(Item, mergedConflicts: [String]? = nil)
    case itemSaveFailed(SaveFailure)
    case itemDeleted(id: String, title: String)
    /// `.deleteItem` failed; the text says why.
    case itemDeleteFailed(id: String, message: String)
    /// `.restoreItem` took the item out of the trash.
    case itemRestored(id: String, title: String)
    /// `.emptyTrash` removed this many items for good.
    case trashEmptied(count: Int)
    /// `.restoreItem` or `.emptyTrash` failed; the text says why.
    case trashActionFailed(message: String)
    case operationFailed(String)
    /// The ids of the files whose bytes are in the vault, read with a listing.
    case arrivedFilesRead(Set<String>)
    /// `.saveFile` wrote the file; the text says where.
    case fileSaved(String)
    /// `.saveFile` found a file at the path: ask before writing over it.
    case fileExists(itemID: String, fileID: String, path: String)
    /// `.addFile` or `.removeFile` went through: the item as saved, the file added (if one was),
    /// and what happened.
    case filesChanged(Item, addedFileID: String?, message: String)
    /// A file's addition or removal failed (it was awaited: the keys typed meanwhile go); the text says why.
    case fileActionFailed(String)
    case passwordGenerated(String)
    case reviewsLoaded([ConflictReview])
    /// `.loadReviews` failed; the text says why.
    case reviewsLoadFailed(String)
    case reviewResolved(itemID: String)

    case devicesLoaded([KnownDevice])
    /// The invitation's code is on `server`, valid until `expires`.
    case invitationOpened(code: String, expires: Date, server: String)
    /// A new device claimed the invitation: ask whether to allow it.
    case invitationClaimed(InvitationTicket)
    /// The invitation ended; the text says how.
    case invitationFinished(String)
    /// A device action went through; the text says what happened.
    case deviceActionFinished(String)

    /// The Members page's invitation code is on the server, valid until `expires`.
    case memberInvitationOpened(code: String, expires: Date)
    /// A person claimed it and sent their card: ask whether to allow them.
    case memberClaimed(MemberTicket)
    /// The invitation ended; the text says how.
    case memberInvitationFinished(String)
    /// `.revokeMember` went through; the text says what happened.
    case memberRevoked(String)
    /// `.revokeMember` failed; the text says why.
    case memberRevokeFailed(String)
    /// After an unlock, this screen began a new epoch of its shared vault (someone had left, or
    /// the last key reached nobody): the sync brings its key, and the kept keys take it.
    case sharedKeysRotated(vault: String, epoch: UInt64)

    /// The vault picker's listing (`.loadVaults`).
    case vaultsLoaded([VaultChoice])
    /// The screen now shows the vault at `path`: its items when kept keys opened it, else nil (locked).
    case vaultSwitched(path: String, summary: VaultSummary, items: [ScreenItem]?)
    /// `.switchVault` failed (the file cannot be opened); the text says why.
    case vaultSwitchFailed(String)

    /// The Health page's check (`.checkHealth`) ended.
    case healthChecked(HealthFindings)

    case syncProgress(SyncProgress)
    case syncFinished(SyncReport)
    /// The kept keys could not take a shared vault's new keys: the screen locks and asks.
    case newKeysNeedUnlock
}

/// Why an unlock did not open the vault.
enum UnlockFailure: Sendable, Equatable {
    case wrongPassphrase
    /// Anything else, as one sentence (tampered data, KDF downgrade…).
    case other(String)
}

/// Why saving an item failed.
enum SaveFailure: Sendable, Equatable {
    /// The vault named these fields as invalid.
    case invalid([FieldProblem])
    /// Another process removed the item while the form was open.
    case removedMeanwhile
    case other(String)

    /// The failure in words, for a save no form shows (a restore from the detail page).
    var sentence: String {
        switch self {
        case .invalid(let problems): return problems.map(\.description).joined(separator: "; ")
        case .removedMeanwhile: return "another process removed the item."
        case .other(let message): return message
        }
    }
}
