/// A merged item waiting for the user to look at it (⚑), sealed in the `reviews` table.
///
/// `conflicts` holds every field where the two versions differed; it may be empty (only the
/// last use or history differed): the item still waits for the user to accept the merge.
public struct ItemReview: Sendable, Codable, Equatable {
    public var id: String
    public var title: String
    public var conflicts: [ItemMerge.FieldConflict]
    /// In a shared vault, the person id the server's version claimed as its signer (verified by
    /// fetch's gate: `ItemSignature`), so the review names the person (since 2026-12-07; an
    /// older reader ignores the member). Nil in a personal vault.
    public var remoteSigner: String? = nil
}

extension ItemReview {
    /// The review of a merge: the merged item's id and title, and the fields the merge reconciled.
    public init(outcome: ItemMerge.Outcome) {
        self.init(id: outcome.merged.id, title: outcome.merged.title, conflicts: outcome.conflicts, remoteSigner: nil)
    }
}

extension Item {
    /// Sets a reviewed field to one side's value, or a list to the merge's combination.
    mutating func take(_ choice: ItemMerge.Choice, of conflict: ItemMerge.FieldConflict) {
        if let lists = conflict.lists {
            setList(conflict.field, to: lists.values(of: choice))
            return
        }
        if let id = conflict.field.customID {
            if choice != .combined { entry[custom: id] = choice == .local ? conflict.customLocal : conflict.customRemote }
            return
        }
        switch choice {
        case .local: setField(conflict.field, to: conflict.local)
        case .remote: setField(conflict.field, to: conflict.remote)
        case .combined: break  // a single value has nothing to combine
        }
    }

    /// Sets a scalar field by its merge name (the values `ItemMerge.FieldConflict` carries).
    mutating func setField(_ field: ItemField, to value: String) {
        switch field {
        case .title: title = value
        case .disabled: disabled = value == "yes"
        case .username: entry.username = value
        case .password: entry.password = value
        case .notes: entry.notes = value
        case .totp: entry.totp = value.isEmpty ? nil : value
        case .kind: entry.kind = value
        case .origins, .tags: break  // lists take their values whole (setList)
        default: entry[field: field.rawValue] = value  // a kind's field by name ("" clears it)
        }
    }

    /// Sets a list field by its merge name.
    mutating func setList(_ field: ItemField, to values: [String]) {
        switch field {
        case .origins: origins = values
        case .tags: tags = values
        // Files merge as a set (nothing is dropped); a review's choice of names leaves them.
        default: break
        }
    }
}
