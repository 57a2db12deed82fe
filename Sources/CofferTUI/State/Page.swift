/// Which screen is showing. The locked pages hold no secret but the passphrase being typed; the
/// unlocked ones only exist while the vault has its keys. The Members page and the vault picker,
/// which hold nothing secret, are either.
enum Page: Sendable, Equatable {
    /// No vault at the path yet.
    case firstRun(NewVaultForm)
    case locked(UnlockPrompt)
    case list
    case detail(DetailState)
    case form(ItemForm)
    case review(ReviewState)
    case devices(DevicesState)
    case health(HealthState)
    /// The items in the trash (issue 43), with the cursor.
    case trash(TrashPage)
    /// A shared vault's members: locked or unlocked, as the page was opened (`MembersState.isVaultLocked`).
    case members(MembersState)
    /// The vault picker: locked or unlocked, as the page was opened (`VaultsState.isVaultLocked`).
    case vaults(VaultsState)

    /// Which page this is, whatever it shows at the moment: a question belongs to one
    /// (`Confirmation.askedOn`).
    enum Identity: Sendable, Equatable {
        case firstRun, locked, list, review, devices, health, members, vaults, trash
        case detail(itemID: String)
        /// The form of an item (nil: a new item).
        case form(itemID: String?)
    }

    var identity: Identity {
        switch self {
        case .firstRun: return .firstRun
        case .locked: return .locked
        case .list: return .list
        case .detail(let detail): return .detail(itemID: detail.itemID)
        case .form(let form): return .form(itemID: form.itemID)
        case .review: return .review
        case .devices: return .devices
        case .health: return .health
        case .trash: return .trash
        case .members: return .members
        case .vaults: return .vaults
        }
    }

    var isLocked: Bool {
        switch self {
        case .firstRun, .locked: return true
        case .list, .detail, .form, .review, .devices, .health, .trash: return false
        case .members(let page): return page.isVaultLocked
        case .vaults(let page): return page.isVaultLocked
        }
    }
}
