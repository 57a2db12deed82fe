import CofferCore
import Foundation

/// One row of the vault picker: a vault file, what it holds and whether it opens now.
///
/// Read locked (the count is of the vault's item records; the name is `meta`'s), so the picker
/// shows every vault without a key. A shared vault's name is someone else's text: shown through
/// `TerminalText`.
struct VaultChoice: Sendable, Equatable {
    enum Access: Sendable, Equatable {
        /// The vault on the screen, unlocked.
        case open
        /// Locked, but the passphrase keys this screen kept open it: Enter opens it without asking.
        case opensWithoutAsking
        /// Enter shows its passphrase prompt.
        case locked
    }

    var path: String
    /// The shared vault's name (`meta.share_name`); nil for the personal vault.
    var sharedName: String?
    /// Its items (not deleted); nil when the file could not be read (`problem` says why).
    var items: Int?
    var access: Access
    /// The vault the screen shows now.
    var isCurrent: Bool
    var problem: String?

    init(path: String, sharedName: String?, items: Int?, access: Access, isCurrent: Bool, problem: String? = nil) {
        self.path = path
        self.sharedName = sharedName
        self.items = items
        self.access = access
        self.isCurrent = isCurrent
        self.problem = problem
    }

    /// "family · shared", or the personal vault's file "vault.db · personal".
    var title: String {
        if let sharedName { return "\(TerminalText.name(sharedName)) · shared" }
        return "\(TerminalText.name((path as NSString).lastPathComponent)) · personal"
    }
}
