import CofferCore

/// One item merged on unlock, with each field where its two versions differed (what `v` reviews).
///
/// `fields` may be empty (only the last use or history differed): the item is still listed so
/// that accepting it clears ⚑.
///
/// The vault builds these (`ScreenServices.loadReviews`, from its `ItemReview`s: `init(_:)`) and
/// applies the user's choices (`ScreenServices.resolveReview`, `swappedChoices`): a choice that
/// differs from the merge's becomes a local change, and resolving clears the item's ⚑ badge.
public struct ConflictReview: Sendable, Equatable, Identifiable {
    public internal(set) var itemID: String
    var title: String
    var fields: [FieldConflict]
    /// Who made the other side of each field, when the vault could say (`ReviewDevices`).
    var devices: ReviewDevices?
    /// In a shared vault, the person id the other side was signed by (`ItemReview.remoteSigner`).
    var remoteSigner: String?

    public var id: String { itemID }

    init(itemID: String, title: String, fields: [FieldConflict]) {
        self.itemID = itemID
        self.title = title
        self.fields = fields
    }

    /// Who made a field's other side: the signer's name in a shared vault, else the stamp's device.
    func otherSide(_ stamp: FieldStamp?) -> String? {
        devices?.otherSide(stamp, signer: remoteSigner)
    }

    /// Whether the user changed any of the merge's choices.
    var isChanged: Bool { fields.contains { $0.chosen != $0.mergeChoice } }
}

/// A review row: a field the merge recorded (the merge's own `ItemMerge.FieldConflict`, the one
/// conflict type from the merge to the screen) and the value the user is choosing to keep.
struct FieldConflict: Sendable, Equatable {
    typealias Choice = ItemMerge.Choice
    typealias ChangedOn = ItemMerge.ChangedOn

    /// What the merge recorded: both values, who changed the field, what it kept.
    var merged: ItemMerge.FieldConflict
    /// What will be kept: the merge's choice until the user swaps it.
    var chosen: Choice

    init(_ merged: ItemMerge.FieldConflict) {
        self.merged = merged
        self.chosen = merged.chosen
    }

    /// A row for a single value (or, with `combined`, a list shown as text).
    init(name: ItemField, local: String, remote: String, combined: String? = nil, changedOn: ChangedOn = .both,
                chosen: Choice) {
        var merged = ItemMerge.FieldConflict(field: name, local: local, remote: remote, changedOn: changedOn, chosen: chosen)
        merged.combined = combined
        self.init(merged)
    }

    var name: ItemField { merged.field }
    var local: String { merged.local }
    var remote: String { merged.remote }
    /// The three-way merge of a list field; nil for single values.
    var combined: String? { merged.combined }
    var changedOn: ChangedOn { merged.changedOn }
    /// What the merge chose.
    var mergeChoice: Choice { merged.chosen }

    /// Whether the values are masked until revealed: a secret field by name, a custom field whose
    /// type is secret on either side (its type may have changed on one).
    var isSecret: Bool {
        merged.isSecret
    }

    /// What the review calls the field: its merge name, or a custom field's label (through
    /// `TerminalText`: another device may have written it).
    var label: String { TerminalText.line(merged.label) }

    /// Whether a side has no such field: a custom field added on the other, or removed.
    func isAbsent(on choice: Choice) -> Bool {
        guard name.customID != nil else { return false }
        switch choice {
        case .local: return merged.customLocal == nil
        case .remote: return merged.customRemote == nil
        case .combined: return false
        }
    }

    func value(of choice: Choice) -> String {
        switch choice {
        case .local: return local
        case .remote: return remote
        case .combined: return combined ?? local
        }
    }

    var chosenValue: String { value(of: chosen) }

    /// Moves to the next choice: local → remote → combined (when there is one) → local. Moving a
    /// field changed on one side to the other side's value undoes that change.
    mutating func swapChoice() {
        switch chosen {
        case .local: chosen = .remote
        case .remote: chosen = combined == nil ? .local : .combined
        case .combined: chosen = .local
        }
    }
}
