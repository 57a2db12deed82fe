import CofferCore

/// The vault's stored reviews as the screen shows them, and the user's choices in the vault's terms.
extension ConflictReview {
    public init(_ review: ItemReview) {
        self.init(itemID: review.id, title: review.title, fields: review.conflicts.map(FieldConflict.init))
    }

    /// The choices the user swapped, for `Vault.resolveReview(_:choosing:)`: the merge's own are
    /// already in the item.
    public var swappedChoices: [String: ItemMerge.Choice] {
        var choices: [String: ItemMerge.Choice] = [:]
        for field in fields where field.chosen != field.mergeChoice {
            choices[field.name] = switch field.chosen {
            case .local: .local
            case .remote: .remote
            case .combined: .combined
            }
        }
        return choices
    }
}

extension FieldConflict {
    public init(_ conflict: ItemMerge.FieldConflict) {
        let changedOn: ChangedOn = switch conflict.changedOn {
        case .both: .both
        case .local: .local
        case .remote: .remote
        }
        let chosen: Choice = switch conflict.chosen {
        case .local: .local
        case .remote: .remote
        case .combined: .combined
        }
        self.init(name: conflict.field, local: conflict.local, remote: conflict.remote, combined: conflict.combined,
                  changedOn: changedOn, chosen: chosen)
    }
}
