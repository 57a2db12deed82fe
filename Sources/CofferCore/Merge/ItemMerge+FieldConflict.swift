extension ItemMerge {
    /// Who changed a field since the version both devices started from.
    public enum ChangedOn: String, Sendable, Codable, Equatable {
        /// Both, to different values; also every difference when no common version is known.
        case both
        /// Only this device: the merge kept its value.
        case local
        /// Only the other device: the merge took its value.
        case remote
    }

    /// The value a review row keeps: one side's, or for a list both sides' changes combined.
    public enum Choice: String, Sendable, Codable, Equatable {
        case local, remote, combined
    }

    /// A field whose two versions differ: what each side had, who changed it, what the merge kept.
    ///
    /// The merge records one for every field where local and remote differ, so a review shows
    /// everything it took from either side, not only the fields changed on both.
    public struct FieldConflict: Sendable, Codable, Equatable {
        /// The field's merge name: `title`, `disabled`, `username`, …, `origins`, `tags`.
        public var field: ItemField
        /// Each side's value as text (`disabled` as yes/no, a list joined with ", ").
        public var local: String
        public var remote: String
        /// A list's three-way merge as text; nil for single values.
        public var combined: String?
        /// A list's exact values, to apply a choice (text joined with ", " cannot be split back).
        public var lists: ListValues?
        public var changedOn: ChangedOn
        /// What the merge kept.
        public var chosen: Choice
        /// For a field both changed: when each side changed it and on which device, as the merge
        /// compared them (the later one won).
        public var localStamp: FieldStamp?
        public var remoteStamp: FieldStamp?
        /// For a custom field: each side's whole field (label and type too), nil where that side
        /// has none (added on the other, or removed).
        public var customLocal: CustomField?
        public var customRemote: CustomField?

        /// Whether the values are secrets: a custom field's when either side's type is secret (one
        /// side may have made it hidden), any other by its name.
        public var isSecret: Bool {
            guard field.customID != nil else { return field.isSecret }
            guard customLocal != nil || customRemote != nil else { return true }
            return customLocal?.isSecret == true || customRemote?.isSecret == true
        }

        /// What a review calls the field: a custom field's label, any other's name.
        public var label: String {
            (customLocal ?? customRemote)?.label ?? field.rawValue
        }

        /// A single value.
        public init(field: ItemField, local: String, remote: String, changedOn: ChangedOn = .both, chosen: Choice) {
            self.field = field
            self.local = local
            self.remote = remote
            self.changedOn = changedOn
            self.chosen = chosen
        }

        /// A list the merge combined from both sides' additions and removals.
        public init(field: ItemField, lists: ListValues, changedOn: ChangedOn) {
            self.field = field
            self.local = lists.local.joined(separator: ", ")
            self.remote = lists.remote.joined(separator: ", ")
            self.combined = lists.combined.joined(separator: ", ")
            self.lists = lists
            self.changedOn = changedOn
            self.chosen = .combined
        }

        enum CodingKeys: String, CodingKey {
            case field, local, remote, combined, lists, changedOn, chosen, localStamp, remoteStamp, customLocal, customRemote
        }

        /// Reviews stored before one-side fields and lists were recorded hold only fields changed on both sides.
        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            field = try container.decode(ItemField.self, forKey: .field)
            local = try container.decode(String.self, forKey: .local)
            remote = try container.decode(String.self, forKey: .remote)
            combined = try container.decodeIfPresent(String.self, forKey: .combined)
            lists = try container.decodeIfPresent(ListValues.self, forKey: .lists)
            changedOn = try container.decodeIfPresent(ChangedOn.self, forKey: .changedOn) ?? .both
            chosen = try container.decode(Choice.self, forKey: .chosen)
            localStamp = try container.decodeIfPresent(FieldStamp.self, forKey: .localStamp)
            remoteStamp = try container.decodeIfPresent(FieldStamp.self, forKey: .remoteStamp)
            customLocal = try container.decodeIfPresent(CustomField.self, forKey: .customLocal)
            customRemote = try container.decodeIfPresent(CustomField.self, forKey: .customRemote)
        }
    }

    /// A list field's values on each side and after the merge.
    public struct ListValues: Sendable, Codable, Equatable {
        public var local: [String]
        public var remote: [String]
        public var combined: [String]

        public init(local: [String], remote: [String], combined: [String]) {
            self.local = local
            self.remote = remote
            self.combined = combined
        }

        public func values(of choice: Choice) -> [String] {
            switch choice {
            case .local: return local
            case .remote: return remote
            case .combined: return combined
            }
        }
    }
}
