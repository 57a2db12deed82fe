import CofferCore

/// A box drawn over the page: it takes the keys until it closes.
enum Overlay: Sendable, Equatable {
    case help
    case confirm(Confirmation)
    /// Which kind a new item is.
    case chooseKind(KindQuestion)
    /// A path to save a file to, or to add one from.
    case path(PathPrompt)
}

/// A yes/no question before something that cannot be taken back.
///
/// A question belongs to the page it was asked on: once that page has gone (a save or a deletion
/// ended, another process removed the item), `Update` closes it unanswered, so the next key never
/// answers it over a page it was not asked on (issue 30).
struct Confirmation: Sendable, Equatable {
    enum Action: Sendable, Equatable {
        case deleteItem(id: String)
        /// Save the item with its entry from before its last change (`R` on the detail page).
        case restoreEntry(id: String)
        case discardChanges
        /// Give up the form's changes and open the vault picker (F3 on a changed form).
        case discardChangesForVaults
        /// Save the form's item, whose original another process removed, as a new item.
        case keepAsNewItem(Item)
        case signOutDevice(id: String, name: String)
        case removeDevice(id: String, name: String)
        /// Let the device that claimed the invitation join (no: refuse it).
        case allowInvitation(InvitationTicket)
        /// Write the item's file over the file at `path`, which exists.
        case replaceFile(itemID: String, fileID: String, path: String)
        /// Remove the item's file (`x`).
        case removeFile(itemID: String, fileID: String, name: String)
        /// Make the person who claimed the Members page's invitation a member (no: refuse them).
        case allowMember(MemberTicket)
        /// Take the member out of the shared vault (`X` on the Members page).
        case revokeMember(id: String, name: String)
        /// Remove every item in the trash for good (`E` on the Trash view).
        case emptyTrash
    }

    var question: String
    var action: Action
    /// The page the question was asked on.
    var askedOn: Page.Identity

    init(question: String, action: Action, askedOn: Page.Identity) {
        self.question = question
        self.action = action
        self.askedOn = askedOn
    }

    /// Whether the question still stands in `state`: its page shows, and the item it would delete
    /// is still there.
    func stands(in state: ScreenState) -> Bool {
        guard state.page.identity == askedOn else { return false }
        switch action {
        case .deleteItem(let id), .restoreEntry(let id): return state.item(id) != nil
        case .revokeMember(let id, _): return state.summary.share?.members.contains { $0.id == id } == true
        case .replaceFile(let itemID, let fileID, _), .removeFile(let itemID, let fileID, _):
            return state.item(itemID)?.item?.attachments.contains { $0.id == fileID } == true
        default: return true
        }
    }
}
