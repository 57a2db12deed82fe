/// The detail page of one item.
public struct DetailState: Sendable, Equatable {
    public var itemID: String
    public var isPasswordRevealed = false
    /// First line shown (history can be longer than the screen).
    public var scroll = 0
    /// Where Esc goes: the Health page (with its cursor) when the item was opened from there.
    public var returnsToHealth: HealthState?

    public init(itemID: String, isPasswordRevealed: Bool = false, scroll: Int = 0, returnsToHealth: HealthState? = nil) {
        self.itemID = itemID
        self.isPasswordRevealed = isPasswordRevealed
        self.scroll = scroll
        self.returnsToHealth = returnsToHealth
    }
}
