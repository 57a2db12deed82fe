import CofferCore
import CofferSync
import Foundation
@testable import CofferTUI

/// A clock the tests move by hand.
struct FakeClock {
    var now: Date

    static let start = Fixtures.date("2026-11-22T09:00:00.000Z")

    init(now: Date = FakeClock.start) { self.now = now }

    mutating func advance(_ seconds: TimeInterval) { now = now.addingTimeInterval(seconds) }
}

/// Items and states shared by the update and snapshot tests.
enum Fixtures {
    static let vaultPath = "/home/alice/.local/share/coffer/vault.db"
    static let utc = TimeZone(identifier: "UTC") ?? .current

    static func date(_ text: String) -> Date {
        guard let timestamp = Timestamp(iso8601: text) else { fatalError("bad fixture date \(text)") }
        return timestamp.date
    }

    static func timestamp(_ text: String) -> Timestamp { Timestamp(date(text)) }

    static let github = Item(
        id: "a1", title: "GitHub", origins: ["https://github.com", "https://gist.github.com"], tags: ["dev", "work"],
        entry: Entry(username: "alice", password: "correct horse battery", notes: "Recovery codes are in the safe."),
        created: timestamp("2026-10-01T08:00:00.000Z"), modified: timestamp("2026-11-20T17:30:00.000Z"),
        lastUsed: timestamp("2026-11-21T12:00:00.000Z"),
        history: [
            HistoryEntry(created: timestamp("2026-11-20T17:30:00.000Z"),
                         patch: .object(["password": .string("hunter2"), "username": .string("alice-old")])),
            HistoryEntry(created: timestamp("2026-10-15T10:00:00.000Z"), patch: .object(["notes": .string("")])),
        ])
    static let bank = Item(
        id: "b2", title: "Bank", origins: ["https://bank.example"], tags: ["finance"],
        entry: Entry(username: "alice.smith", password: "s3cret!"),
        created: timestamp("2026-09-01T08:00:00.000Z"), modified: timestamp("2026-11-21T08:00:00.000Z"))
    static let mail = Item(
        id: "c3", title: "Mail", origins: ["mail.example.org"], tags: [],
        entry: Entry(username: "alice@example.org", password: "p@ss"),
        created: timestamp("2026-09-02T08:00:00.000Z"), modified: timestamp("2026-11-22T08:30:00.000Z"))
    static let forum = Item(
        id: "d4", title: "Old forum", origins: [], tags: ["archive"],
        entry: Entry(username: "al", password: "x"), disabled: true,
        created: timestamp("2020-01-01T08:00:00.000Z"), modified: timestamp("2021-01-01T08:00:00.000Z"))
    static let japaneseBank = Item(
        id: "e5", title: "日本の銀行", origins: ["https://ginkou.example.jp"], tags: ["旅行", "finance"],
        entry: Entry(username: "arisu", password: "kagi"),
        created: timestamp("2026-05-01T08:00:00.000Z"), modified: timestamp("2026-05-01T08:00:00.000Z"))
    static let wifi = Item(
        id: "f6", title: "🔑 Home Wi-Fi", origins: [], tags: ["home"],
        entry: Entry(username: "", password: "long wifi passphrase"),
        created: timestamp("2026-04-01T08:00:00.000Z"), modified: timestamp("2026-04-01T08:00:00.000Z"))

    // MARK: Kinds

    /// A card with every field, a text, a hidden and a TOTP custom field.
    static let visa = Item(
        id: "h8", title: "Visa", tags: ["finance"],
        entry: Entry(kind: "card", notes: "Call 0800 123 456 if lost.",
                     fields: ["cardholder": "Alice Smith", "number": "4111 1111 1111 1111", "expiry_month": "12",
                              "expiry_year": "2029", "code": "737", "pin": "4321"],
                     custom: [CustomField(id: "f-hint", label: "PIN hint", value: "the usual one"),
                              CustomField(id: "f-line", label: "Bank line", value: "+44 20 7946 0000", type: .hidden),
                              CustomField(id: "f-3ds", label: "3-D Secure", value: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
                                          type: .totp)]),
        created: timestamp("2026-08-01T08:00:00.000Z"), modified: timestamp("2026-11-19T08:00:00.000Z"))
    /// An identity with some fields empty, a secret one set, and a URL custom field.
    static let alice = Item(
        id: "i9", title: "Alice Smith", tags: ["me"],
        entry: Entry(kind: "identity",
                     fields: ["first_name": "Alice", "last_name": "Smith", "email": "alice@example.org",
                              "phone": "+44 20 7946 0001", "address": "1 Long Road", "city": "London",
                              "postal_code": "N1 9GU", "country": "United Kingdom", "passport": "X1234567"],
                     custom: [CustomField(id: "f-web", label: "Homepage", value: "https://alice.example", type: .url)]),
        created: timestamp("2026-07-01T08:00:00.000Z"), modified: timestamp("2026-11-18T08:00:00.000Z"))
    /// A secure note with a hidden custom field.
    static let recovery = Item(
        id: "j10", title: "Recovery codes", tags: [],
        entry: Entry(kind: "note", notes: "1. abcd-efgh\n2. ijkl-mnop",
                     custom: [CustomField(id: "f-backup", label: "Backup code", value: "9911-2233", type: .hidden)]),
        created: timestamp("2026-06-01T08:00:00.000Z"), modified: timestamp("2026-11-17T08:00:00.000Z"))
    /// An item of a kind a newer version wrote: fields by name, one secret by its name, one whose
    /// value tries to drive the terminal (OSC 52, a bidi override).
    static let future = Item(
        id: "k11", title: "Passkey for example.com", tags: [],
        entry: Entry(kind: "passkey", notes: "Made on a newer device.",
                     fields: ["rp_id": "example.com", "pin": "0000", "user_handle": "\u{1B}]52;c;ZXZpbA==\u{07}\u{202E}moc"]),
        created: timestamp("2026-05-01T08:00:00.000Z"), modified: timestamp("2026-11-16T08:00:00.000Z"))

    /// The list with one item of every kind, one of an unknown kind, and logins.
    static let kindItems: [ScreenItem] = [
        ScreenItem(github), ScreenItem(bank), ScreenItem(visa), ScreenItem(alice), ScreenItem(recovery),
        ScreenItem(future, hasLocalChange: true), ScreenItem(id: "g7", content: .waitingForKey),
    ]

    /// One item per badge, plus wide characters and an item waiting for its key.
    static let items: [ScreenItem] = [
        ScreenItem(github, needsReview: true),
        ScreenItem(bank, hasConflict: true),
        ScreenItem(mail, hasLocalChange: true),
        ScreenItem(forum),
        ScreenItem(japaneseBank),
        ScreenItem(wifi),
        ScreenItem(id: "g7", content: .waitingForKey),
    ]

    static let summary = VaultSummary(items: 7, pending: 1, conflicts: 1, unreviewed: 1,
                                      lastSync: date("2026-11-22T08:58:00.000Z"), account: "alice")

    static let settings = ScreenSettings(autoLockSeconds: 300, clipboardSeconds: 10, timeZone: utc)

    /// The locked screen of an existing vault with a sync account.
    static func locked(summary: VaultSummary = Fixtures.summary, now: Date = FakeClock.start) -> ScreenState {
        ScreenState(vaultPath: vaultPath, summary: summary, settings: settings, now: now)
    }

    /// The list, unlocked, first item selected, no sync running.
    static func unlocked(items: [ScreenItem] = Fixtures.items, summary: VaultSummary = Fixtures.summary,
                         now: Date = FakeClock.start) -> ScreenState {
        var state = locked(summary: summary, now: now)
        state.page = .list
        state.items = items
        state.list.selectedID = state.visibleItems.first?.id
        return state
    }

    static func firstRun(now: Date = FakeClock.start) -> ScreenState {
        ScreenState(vaultPath: vaultPath, summary: nil, settings: settings, now: now)
    }

    static let review = ConflictReview(itemID: "a1", title: "GitHub", fields: [
        FieldConflict(name: .username, local: "alice", remote: "alice.w", chosen: .local),
        FieldConflict(name: .password, local: "correct horse battery", remote: "Tr0ub4dor&3", chosen: .local),
        FieldConflict(name: .tags, local: "dev, work", remote: "dev, oss", combined: "dev, oss, work", chosen: .combined),
    ])
    static let secondReview = ConflictReview(itemID: "b2", title: "Bank", fields: [
        FieldConflict(name: .notes, local: "Branch: Main St", remote: "Branch: Elm St", chosen: .remote),
    ])
    /// A merge where no field changed on both sides: one taken from each device, a list combined.
    static let oneSideReview = ConflictReview(itemID: "c3", title: "Mail", fields: [
        FieldConflict(name: .username, local: "alice@example.org", remote: "alice@old.example.org", changedOn: .local,
                      chosen: .local),
        FieldConflict(name: .password, local: "p@ss", remote: "n3w p@ss", changedOn: .remote, chosen: .remote),
        FieldConflict(name: .origins, local: "mail.example.org", remote: "mail.example.org, webmail.example.org",
                      combined: "mail.example.org, webmail.example.org", changedOn: .remote, chosen: .combined),
    ])
    /// A merge where only the last use differed: nothing to choose, only to accept.
    static let lastUseReview = ConflictReview(itemID: "d4", title: "Old forum", fields: [])
}
