/// What an item is — a login, a secure note, a card, an identity, an SSH key — and the fields its kind has
/// (architecture §2). Every kind has a title, notes, origins, tags and custom fields; the kind adds
/// named fields. A kind this version does not know (a newer device's) is kept as it came: its
/// fields are shown as text, merged and synced unchanged.
public struct ItemKind: Sendable, Equatable {
    /// The name stored in `entry.kind`.
    public let name: String
    /// What a person reads ("Card").
    public let label: String
    /// One character for the list's kind column.
    public let glyph: Character
    /// The kind's own fields, in the order forms and details show them.
    public let fields: [KindField]

    public static let login = ItemKind(name: "login", label: "Login", glyph: "L", fields: [
        KindField("username", "Username"),
        KindField("password", "Password", secret: true),
        KindField("totp", "TOTP", secret: true),
    ])
    public static let note = ItemKind(name: "note", label: "Secure note", glyph: "N", fields: [])
    public static let card = ItemKind(name: "card", label: "Card", glyph: "C", fields: [
        KindField("cardholder", "Cardholder"),
        KindField("number", "Number", secret: true),
        KindField("expiry_month", "Expiry month", format: .month),
        KindField("expiry_year", "Expiry year", format: .year),
        KindField("code", "Security code", secret: true),
        KindField("pin", "PIN", secret: true),
    ])
    public static let identity = ItemKind(name: "identity", label: "Identity", glyph: "I", fields: [
        KindField("first_name", "First name"),
        KindField("middle_name", "Middle name"),
        KindField("last_name", "Last name"),
        KindField("email", "Email"),
        KindField("phone", "Phone"),
        KindField("company", "Company"),
        KindField("address", "Address"),
        KindField("city", "City"),
        KindField("region", "State or region"),
        KindField("postal_code", "Postal code"),
        KindField("country", "Country"),
        KindField("national_id", "National ID", secret: true),
        KindField("passport", "Passport number", secret: true),
        KindField("license", "Driver's license", secret: true),
    ])

    /// An SSH key the agent signs with (`SSHKey+Item.swift`): the private key is an unencrypted
    /// OpenSSH key file (the vault encrypts it); the public key, fingerprint and comment are
    /// derived from it when it is stored; hosts and confirm are the agent's rules for it.
    public static let sshKey = ItemKind(name: "ssh-key", label: "SSH key", glyph: "S", fields: [
        KindField("private_key", "Private key", secret: true, limit: OpenSSHKeyFile.maximumSize),
        KindField("public_key", "Public key", limit: 4_000),
        KindField("fingerprint", "Fingerprint"),
        KindField("comment", "Comment"),
        // Set by the user: the known_hosts names the key is offered to (none: every host), and
        // whether to ask through $SSH_ASKPASS before each signature (`FlagValue`).
        KindField("hosts", "Hosts"),
        KindField("confirm", "Confirm each use", format: .flag),
    ])

    /// The kinds this version knows, in the order `n` offers them.
    public static let known: [ItemKind] = [login, note, card, identity, sshKey]

    /// The kind named `name`; nil for a kind this version does not know.
    public static func named(_ name: String) -> ItemKind? {
        known.first { $0.name == name }
    }

    /// Every name a kind field has, with whether it is secret: field names mean the same in every
    /// kind, so a history patch's member says by its name alone whether to mask it.
    public static let secretFieldNames: Set<String> = Set(known.flatMap { $0.fields.filter(\.isSecret).map(\.name) })

    /// The field of this kind named or labelled `name` (case-insensitive), for `--field`; a `-`
    /// stands for `_`, so `public-key` names `public_key`.
    public func field(_ name: String) -> KindField? {
        let wanted = name.lowercased()
        let underscored = wanted.replacingOccurrences(of: "-", with: "_")
        return fields.first { $0.name == wanted || $0.name == underscored || $0.label.lowercased() == wanted }
    }

    /// What the list shows beside an item's title: a login's username, a card's cardholder, an
    /// identity's name (else its email), an SSH key's fingerprint; never a secret field. A kind this version does not know
    /// shows its username, if it has one.
    public static func listedName(of entry: Entry) -> String {
        switch entry.kind {
        case card.name: return entry.fields["cardholder"] ?? ""
        case sshKey.name: return entry.fields["fingerprint"] ?? ""
        case identity.name:
            let name = [entry.fields["first_name"], entry.fields["last_name"]].compactMap { $0 }.filter { !$0.isEmpty }
            return name.isEmpty ? entry.fields["email"] ?? "" : name.joined(separator: " ")
        default: return entry.username
        }
    }

    /// The names `entry` stores outside `Entry.fields` (a login's), which no other kind may use.
    static let entryMembers: Set<String> = ["kind", "username", "password", "notes", "totp", "custom"]
}

/// One named field of a kind.
public struct KindField: Sendable, Equatable {
    public enum Format: Sendable, Equatable {
        case text
        /// 1–12.
        case month
        /// Four digits.
        case year
        /// Yes or no (`FlagValue`): a checkbox on the screen, a fixed set of spellings on the command line.
        case flag
    }

    /// The member name in `entry` (`number`), also what `--field` and `show --field` take.
    public let name: String
    public let label: String
    /// Masked until revealed, left out of `show` without `--reveal`, never searched.
    public let isSecret: Bool
    public let format: Format
    /// The most characters a value may have (`ItemValidation`): short text but for an SSH key's
    /// key file and public key line.
    public let limit: Int

    init(_ name: String, _ label: String, secret: Bool = false, format: Format = .text,
         limit: Int = ItemValidation.shortTextLimit) {
        self.name = name
        self.label = label
        self.isSecret = secret
        self.format = format
        self.limit = limit
    }
}
