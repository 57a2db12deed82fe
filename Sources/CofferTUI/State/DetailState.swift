/// The detail page of one item.
struct DetailState: Sendable, Equatable {
    var itemID: String
    var isPasswordRevealed = false
    /// First line shown (history can be longer than the screen).
    var scroll = 0
    /// Where Esc goes: the Health page (with its cursor) when the item was opened from there.
    var returnsToHealth: HealthState?

    init(itemID: String, isPasswordRevealed: Bool = false, scroll: Int = 0, returnsToHealth: HealthState? = nil) {
        self.itemID = itemID
        self.isPasswordRevealed = isPasswordRevealed
        self.scroll = scroll
        self.returnsToHealth = returnsToHealth
    }
}
