/// Where keys go: each page, and each part of a page that takes its own keys.
enum KeyContext: String, Sendable, Hashable, CaseIterable {
    case firstRun, locked, list, filter, detail, form, generator, review, devices, health, trash, members, vaults, confirm, kindChoice, pathPrompt, help

    /// Whether printable keys without a binding are typed into a field.
    var takesText: Bool {
        switch self {
        case .firstRun, .locked, .filter, .form, .pathPrompt: return true
        default: return false
        }
    }

    /// The context of the page under any overlay (what the help screen describes).
    static func page(of state: ScreenState) -> KeyContext {
        switch state.page {
        case .firstRun: return .firstRun
        case .locked: return .locked
        case .list: return state.list.isFilterFocused ? .filter : .list
        case .detail: return .detail
        case .form(let form): return form.generator == nil ? .form : .generator
        case .review: return .review
        case .devices: return .devices
        case .health: return .health
        case .trash: return .trash
        case .members: return .members
        case .vaults: return .vaults
        }
    }

    /// The context that receives the next key.
    static func current(of state: ScreenState) -> KeyContext {
        switch state.overlay {
        case .help: return .help
        case .confirm: return .confirm
        case .chooseKind: return .kindChoice
        case .path: return .pathPrompt
        case nil: return page(of: state)
        }
    }

    var title: String {
        switch self {
        case .firstRun: return "New vault"
        case .locked: return "Locked"
        case .list: return "List"
        case .filter: return "Filter"
        case .detail: return "Detail"
        case .form: return "Edit"
        case .generator: return "Password generator"
        case .review: return "Conflict review"
        case .devices: return "Devices"
        case .health: return "Password health"
        case .trash: return "Trash"
        case .members: return "Members"
        case .vaults: return "Vaults"
        case .confirm: return "Confirm"
        case .kindChoice: return "New item"
        case .pathPrompt: return "Path"
        case .help: return "Help"
        }
    }
}
