import CofferCore

/// A box drawn over the page: it takes the keys until it closes.
enum Overlay: Sendable, Equatable {
    case help
    case confirm(Confirmation)
}

/// A yes/no question before something that cannot be taken back.
struct Confirmation: Sendable, Equatable {
    enum Action: Sendable, Equatable {
        case deleteItem(id: String)
        case discardChanges
        /// Save the form's item, whose original another process removed, as a new item.
        case keepAsNewItem(Item)
        case signOutDevice(id: String, name: String)
        case removeDevice(id: String, name: String)
        /// Let the device that claimed the invitation join (no: refuse it).
        case allowInvitation(InvitationTicket)
    }

    var question: String
    var action: Action

    init(question: String, action: Action) {
        self.question = question
        self.action = action
    }
}
