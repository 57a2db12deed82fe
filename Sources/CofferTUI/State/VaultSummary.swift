import CofferCore
import CofferSync
import Foundation

/// The counts and sync facts the screen shows, readable while the vault is locked.
///
/// A copy of `VaultStatus` with dates parsed, so the screen's state can be built in tests.
struct VaultSummary: Sendable, Equatable {
    var items: Int
    /// Local item changes not yet on the server (the vault's own records are not counted: see
    /// `VaultStatus.pending`).
    var pending: Int
    /// Items changed here and elsewhere, waiting for an unlock to merge (⚠).
    var conflicts: Int
    /// Merged items not yet reviewed (⚑).
    var unreviewed: Int
    var lastSync: Date?
    var lastError: SyncErrorName?
    var lastErrorMessage: String?
    var backoffUntil: Date?
    var account: String?
    /// "clock 7 min behind the server (corrected)" when the last sync measured more than 5 min.
    var clockWarning: String?
    /// Server clock minus device clock as the last sync measured it: TOTP codes use the server's time.
    var clockSkewMilliseconds: Int64?
    /// The last lock another device asked for, whichever process of this vault handled it.
    var remoteLock: DeviceLockNotice?
    /// False until the first count: the screen starts from the sync facts alone and shows
    /// "counting…" for the four counts until its first reload brings them.
    var isCounted = true
    /// A shared vault's name and members (readable locked too); nil for a personal vault.
    var share: SharedVaultSummary?

    init(items: Int = 0, pending: Int = 0, conflicts: Int = 0, unreviewed: Int = 0, lastSync: Date? = nil,
                lastError: SyncErrorName? = nil, lastErrorMessage: String? = nil, backoffUntil: Date? = nil,
                account: String? = nil, clockWarning: String? = nil, remoteLock: DeviceLockNotice? = nil) {
        self.items = items
        self.pending = pending
        self.conflicts = conflicts
        self.unreviewed = unreviewed
        self.lastSync = lastSync
        self.lastError = lastError
        self.lastErrorMessage = lastErrorMessage
        self.backoffUntil = backoffUntil
        self.account = account
        self.clockWarning = clockWarning
        self.remoteLock = remoteLock
    }

    init(_ status: VaultStatus, isCounted: Bool = true) {
        self.init(items: status.items, pending: status.pending, conflicts: status.conflicts,
                  unreviewed: status.unreviewed,
                  lastSync: status.lastSync.flatMap { Timestamp(iso8601: $0)?.date },
                  lastError: status.lastError.flatMap(SyncErrorName.init(rawValue:)),
                  lastErrorMessage: status.lastErrorMessage,
                  backoffUntil: status.backoffUntil.flatMap { Timestamp(iso8601: $0)?.date },
                  account: status.account, clockWarning: status.clockWarning, remoteLock: status.remoteLock)
        clockSkewMilliseconds = status.clockSkewMs
        self.isCounted = isCounted
    }

    /// `vault`'s counts (or, when `isCounted` is false, its sync facts alone: the first frame's)
    /// and, for a shared vault, its name and members.
    init(of vault: Vault, isCounted: Bool = true) throws {
        self.init(isCounted ? try vault.database.status() : try vault.database.statusWithoutCounts(), isCounted: isCounted)
        share = try SharedVaultSummary.read(from: vault)
    }
}
