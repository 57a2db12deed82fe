import Foundation

/// A member name the item codec knows, matched against a key's bytes without building a `String`.
protocol ItemJSONMember: RawRepresentable<Int> {
    init?(bytes: UnsafeBufferPointer<UInt8>)
    /// The name as written in the JSON (for errors).
    var name: String { get }
}

/// One object's members, the one loop of the item codecs, without closures (a closure capturing
/// the caller's variables boxed each of them: 15 % of listing 100,000 items):
///
///     var members = try MemberLoop<EntryMember>(&scanner, "entry")
///     while let name = try members.next(&scanner) { switch name { … } }
///
/// A known member named twice is refused: which one would win is a guess.
struct MemberLoop<Member: ItemJSONMember> {
    /// A member `Member` names, or any other by name (its value not yet read).
    enum Key {
        case known(Member)
        case other(String)
    }

    private var count = 0
    private var seen: UInt32 = 0

    /// Enters the object (`{`); a type error if the value is something else.
    init(_ scanner: inout JSONScanner, _ what: String) throws {
        try scanner.enterObject(what)
    }

    /// The next member `Member` names, any other skipped; nil after the closing `}`.
    mutating func next(_ scanner: inout JSONScanner) throws -> Member? {
        while let key = try scanner.nextKey(after: count) {
            count += 1
            guard let member = scanner.withBytes(of: key, { Member(bytes: $0) }) else {
                try scanner.skipValue()
                continue
            }
            try mark(member)
            return member
        }
        return nil
    }

    /// The next member, known or by name: the caller reads (or skips) its value. nil after `}`.
    mutating func nextKey(_ scanner: inout JSONScanner) throws -> Key? {
        guard let key = try scanner.nextKey(after: count) else { return nil }
        count += 1
        guard let member = scanner.withBytes(of: key, { Member(bytes: $0) }) else { return .other(scanner.string(of: key)) }
        try mark(member)
        return .known(member)
    }

    private mutating func mark(_ member: Member) throws {
        let bit = UInt32(1) << UInt32(member.rawValue)
        guard seen & bit == 0 else { throw ItemJSONError.duplicateMember(member.name) }
        seen |= bit
    }
}

/// Whether `bytes` spell `literal` exactly.
func spells(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    guard let base = bytes.baseAddress, literal.utf8CodeUnitCount == bytes.count else { return false }
    return memcmp(base, literal.utf8Start, bytes.count) == 0
}

// Each `init?(bytes:)` switches on the length first: ten comparisons per key would show at 100,000 items.

enum ItemMember: Int, ItemJSONMember {
    case id, title, origins, tags, entry, disabled, created, modified, lastUsed, history, times, attachments

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        switch bytes.count {
        case 2 where spells(bytes, "id"): self = .id
        case 4 where spells(bytes, "tags"): self = .tags
        case 5 where spells(bytes, "title"): self = .title
        case 5 where spells(bytes, "times"): self = .times
        case 5 where spells(bytes, "entry"): self = .entry
        case 7 where spells(bytes, "created"): self = .created
        case 7 where spells(bytes, "origins"): self = .origins
        case 7 where spells(bytes, "history"): self = .history
        case 8 where spells(bytes, "disabled"): self = .disabled
        case 8 where spells(bytes, "modified"): self = .modified
        case 9 where spells(bytes, "last_used"): self = .lastUsed
        case 11 where spells(bytes, "attachments"): self = .attachments
        default: return nil
        }
    }

    var name: String { self == .lastUsed ? "last_used" : "\(self)" }
}

enum EntryMember: Int, ItemJSONMember {
    case kind, username, password, notes, totp, custom

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        switch bytes.count {
        case 4 where spells(bytes, "kind"): self = .kind
        case 4 where spells(bytes, "totp"): self = .totp
        case 5 where spells(bytes, "notes"): self = .notes
        case 6 where spells(bytes, "custom"): self = .custom
        case 8 where spells(bytes, "username"): self = .username
        case 8 where spells(bytes, "password"): self = .password
        default: return nil
        }
    }

    var name: String { "\(self)" }
}

enum HistoryMember: Int, ItemJSONMember {
    case created, patch, tags

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        switch bytes.count {
        case 7 where spells(bytes, "created"): self = .created
        case 5 where spells(bytes, "patch"): self = .patch
        case 4 where spells(bytes, "tags"): self = .tags
        default: return nil
        }
    }

    var name: String { "\(self)" }
}

enum StampMember: Int, ItemJSONMember {
    case at, by

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        switch bytes.count {
        case 2 where spells(bytes, "at"): self = .at
        case 2 where spells(bytes, "by"): self = .by
        default: return nil
        }
    }

    var name: String { "\(self)" }
}

enum CustomFieldMember: Int, ItemJSONMember {
    case id, label, value, type

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        switch bytes.count {
        case 2 where spells(bytes, "id"): self = .id
        case 4 where spells(bytes, "type"): self = .type
        case 5 where spells(bytes, "label"): self = .label
        case 5 where spells(bytes, "value"): self = .value
        default: return nil
        }
    }

    var name: String { "\(self)" }
}

enum AttachmentMember: Int, ItemJSONMember {
    case id, name, size, sha256, added

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        switch bytes.count {
        case 2 where spells(bytes, "id"): self = .id
        case 4 where spells(bytes, "name"): self = .name
        case 4 where spells(bytes, "size"): self = .size
        case 5 where spells(bytes, "added"): self = .added
        case 6 where spells(bytes, "sha256"): self = .sha256
        default: return nil
        }
    }

    var name: String { "\(self)" }
}
