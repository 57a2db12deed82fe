/// One item merged on unlock, with each field where its two versions differed (what `v` reviews).
///
/// `fields` may be empty (only the last use or history differed): the item is still listed so
/// that accepting it clears ⚑.
///
/// The vault builds these (`ScreenServices.loadReviews`, from its `ItemReview`s: `init(_:)`) and
/// applies the user's choices (`ScreenServices.resolveReview`, `swappedChoices`): a choice that
/// differs from the merge's becomes a local change, and resolving clears the item's ⚑ badge.
public struct ConflictReview: Sendable, Equatable, Identifiable {
    public var itemID: String
    public var title: String
    public var fields: [FieldConflict]

    public var id: String { itemID }

    public init(itemID: String, title: String, fields: [FieldConflict]) {
        self.itemID = itemID
        self.title = title
        self.fields = fields
    }

    /// Whether the user changed any of the merge's choices.
    public var isChanged: Bool { fields.contains { $0.chosen != $0.mergeChoice } }
}

/// A field whose versions differ: both values, who changed it and the one kept.
public struct FieldConflict: Sendable, Equatable {
    public enum Choice: String, Sendable, Equatable {
        case local, remote
        /// Both sides' additions and removals (lists such as origins and tags).
        case combined
    }

    /// Who changed the field since the version both devices started from.
    public enum ChangedOn: Sendable, Equatable {
        /// Both, to different values (or no common version was known).
        case both
        /// Only this device; the merge kept its value.
        case local
        /// Only the other device; the merge took its value.
        case remote
    }

    /// The field's name as the item spells it: `title`, `username`, `password`, `notes`, `origins`…
    public var name: String
    public var local: String
    public var remote: String
    /// The three-way merge of a list field; nil for single values.
    public var combined: String?
    public var changedOn: ChangedOn
    /// What the merge chose.
    public var mergeChoice: Choice
    /// What will be kept: the merge's choice until the user swaps it.
    public var chosen: Choice

    public init(name: String, local: String, remote: String, combined: String? = nil, changedOn: ChangedOn = .both,
                chosen: Choice) {
        self.name = name
        self.local = local
        self.remote = remote
        self.combined = combined
        self.changedOn = changedOn
        self.mergeChoice = chosen
        self.chosen = chosen
    }

    public var isSecret: Bool { name == "password" || name == "totp" }

    public func value(of choice: Choice) -> String {
        switch choice {
        case .local: return local
        case .remote: return remote
        case .combined: return combined ?? local
        }
    }

    public var chosenValue: String { value(of: chosen) }

    /// Moves to the next choice: local → remote → combined (when there is one) → local. Moving a
    /// field changed on one side to the other side's value undoes that change.
    public mutating func swapChoice() {
        switch chosen {
        case .local: chosen = .remote
        case .remote: chosen = combined == nil ? .local : .combined
        case .combined: chosen = .local
        }
    }
}
