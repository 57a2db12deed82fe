import CofferCore

/// A box drawn over the page: it takes the keys until it closes.
public enum Overlay: Sendable, Equatable {
    case help
    case confirm(Confirmation)
}

/// A yes/no question before something that cannot be taken back.
public struct Confirmation: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case deleteItem(id: String)
        case discardChanges
        /// Save the form's item, whose original another process removed, as a new item.
        case keepAsNewItem(Item)
        case signOutDevice(id: String, name: String)
        case removeDevice(id: String, name: String)
        /// Let the device that claimed the invitation join (no: refuse it).
        case allowInvitation(InvitationTicket)
    }

    public var question: String
    public var action: Action

    public init(question: String, action: Action) {
        self.question = question
        self.action = action
    }
}
