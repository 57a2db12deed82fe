import CofferCore
import CofferSync
import Foundation

/// Everything the screen shows, as one value: `Update` changes it, `Render` draws it.
///
/// Secrets (items, the passphrase being typed) live here only while needed: locking resets every
/// unlocked part, so neither the state nor the next frame holds them.
struct ScreenState: Sendable, Equatable {
    var vaultPath: String
    var vaultName: String
    var settings: ScreenSettings
    var size: Size
    var page: Page
    var overlay: Overlay?
    var summary: VaultSummary
    /// The vault's items while unlocked; empty while locked.
    var items: [ScreenItem] = [] {
        didSet { index = ListIndex(items: items, sort: list.sort) }
    }
    var list = ListState() {
        didSet {
            if list.sort != oldValue.sort {
                index = ListIndex(items: items, sort: list.sort)
            } else if list.filter.text != oldValue.filter.text {
                filterVisibleItems(fromScratch: false)
            }
        }
    }
    /// `items` sorted and ready to filter; derived, kept current by `items` and `list`.
    private(set) var index = ListIndex() {
        didSet { filterVisibleItems(fromScratch: true) }
    }
    /// The list's rows after the filter and the sort; derived, kept current by `items` and `list`.
    private(set) var visibleItems = VisibleRows()
    private var filterMemo = FilterMemo()
    var sync: SyncDisplay
    var scheduler: SyncScheduler
    var busy: Busy?
    /// This screen's saves and deletions so far: a reload's listing begun before the last of them
    /// may lack it (`ScreenEvent.reloaded`).
    var localWrites = 0
    /// A save, deletion or load whose outcome decides the next page, with the keys typed meanwhile.
    var awaiting: AwaitedWork?
    /// A device's claim on the Devices page's invitation that came while another question was
    /// open there: asked once that question closes (a key meant for it must not answer this one).
    var heldClaim: InvitationTicket?
    var clipboard: ClipboardCountdown?
    var notice: Notice?
    /// The unlock is still opening items: `items` holds those opened so far.
    var isOpeningItems = false
    /// The ids of the files whose bytes are in the vault (`Vault.arrivedAttachmentIDs`, read with
    /// every listing); a file an item names that is not here has not arrived from the server yet.
    var arrivedFiles: Set<String> = []
    /// The last password health check (the Health page, the detail's badge line); nil while locked.
    var health: HealthFindings?
    /// The last key press, for auto-lock.
    var lastInput: Date
    /// When this screen last unlocked: a remote lock sent before it does not apply.
    var unlockedAt: Date?
    /// Set when the screen should close, with the process's exit code.
    var exitCode: Int32?

    /// The state before the first event: the locked screen of an existing vault, or the first-run
    /// form when `summary` is nil (no vault at the path).
    init(vaultPath: String, summary: VaultSummary?, settings: ScreenSettings = ScreenSettings(),
                size: Size = .standard, now: Date) {
        self.vaultPath = vaultPath
        self.vaultName = (vaultPath as NSString).lastPathComponent
        self.settings = settings
        self.size = size
        self.page = summary == nil ? .firstRun(NewVaultForm()) : .locked(UnlockPrompt())
        self.summary = summary ?? VaultSummary()
        self.sync = SyncDisplay(lastError: summary?.lastError, lastMessage: summary?.lastErrorMessage,
                                lastSync: summary?.lastSync)
        self.scheduler = SyncScheduler(hasAccount: summary?.account != nil, backoffUntil: summary?.backoffUntil)
        self.lastInput = now
    }

    var isLocked: Bool { page.isLocked }
    var hasVault: Bool {
        if case .firstRun = page { return false }
        return true
    }

    func item(_ id: String) -> ScreenItem? { items.first { $0.id == id } }

    /// Recomputes `visibleItems`, reusing what `filterMemo` remembers of earlier queries.
    private mutating func filterVisibleItems(fromScratch: Bool) {
        if fromScratch { filterMemo = FilterMemo() }
        let query = ItemFilter.query(list.filter.text)
        let words = query.words
        var rows: [Int]?
        if !words.isEmpty {
            let found = filterMemo.rows(for: words)
                ?? index.rows(matching: words, among: filterMemo.candidates(for: words))
            filterMemo.remember(words, rows: found)
            rows = found
        }
        visibleItems = VisibleRows(sorted: index.sorted, positions: index.rows(ofKinds: query.kinds, among: rows))
    }
}
