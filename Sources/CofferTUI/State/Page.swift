/// Which screen is showing. The locked pages hold no secret but the passphrase being typed; the
/// unlocked ones only exist while the vault has its keys.
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

    var isLocked: Bool {
        switch self {
        case .firstRun, .locked: return true
        case .list, .detail, .form, .review, .devices, .health: return false
        }
    }
}
