import CofferCore

/// The detail page of one item.
struct DetailState: Sendable, Equatable {
    var itemID: String
    /// Secret fields (a password, a card's number, hidden custom fields, earlier values in the
    /// history) shown as they are.
    var isRevealed = false
    /// The field the cursor is on, which Enter copies; nil (or a field the item no longer has):
    /// the first.
    var selected: DetailField?
    /// First line shown (history can be longer than the screen).
    var scroll = 0
    /// Where Esc goes: the Health page (with its cursor) when the item was opened from there.
    var returnsToHealth: HealthState?

    init(itemID: String, isRevealed: Bool = false, selected: DetailField? = nil, scroll: Int = 0,
         returnsToHealth: HealthState? = nil) {
        self.itemID = itemID
        self.isRevealed = isRevealed
        self.selected = selected
        self.scroll = scroll
        self.returnsToHealth = returnsToHealth
    }

    /// The field the cursor is on in `item`: `selected` while the item has it, else the first.
    func selectedField(in item: Item) -> DetailField? {
        let fields = DetailField.fields(of: item)
        if let selected, fields.contains(selected) { return selected }
        return fields.first
    }
}
