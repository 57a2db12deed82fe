import CofferCore

/// The vault's stored reviews as the screen shows them, and the user's choices in the vault's terms.
extension ConflictReview {
    /// `devices` names the other side's maker per field (`ReviewDevices`); nil keeps "other device".
    public init(_ review: ItemReview, devices: ReviewDevices? = nil) {
        self.init(itemID: review.id, title: review.title, fields: review.conflicts.map(FieldConflict.init))
        self.devices = devices
        self.remoteSigner = review.remoteSigner
    }

    /// The choices the user swapped, for `Vault.resolveReview(_:choosing:)`: the merge's own are
    /// already in the item.
    public var swappedChoices: [ItemField: ItemMerge.Choice] {
        var choices: [ItemField: ItemMerge.Choice] = [:]
        for field in fields where field.chosen != field.mergeChoice { choices[field.name] = field.chosen }
        return choices
    }
}
