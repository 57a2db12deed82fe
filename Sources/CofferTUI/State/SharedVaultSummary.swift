import CofferCore
import Foundation

/// What the screen shows of a shared vault (architecture §17): its name, and its members as the
/// roster this device verified last says. Nil in `VaultSummary.share` for a personal vault.
///
/// Nothing here is secret (the roster is kept in `meta` by every sync, locked or not), so the
/// title bar and the Members page show it locked or unlocked. Names and accounts are kept as
/// the roster holds them: strangers' bytes, each shown through `TerminalText`.
struct SharedVaultSummary: Sendable, Equatable {
    /// One member, with the entry that made them one.
    struct Member: Sendable, Equatable {
        var id: String
        var name: String
        var account: String
        /// The id of the member who signed the `add`; their own for the vault's creator.
        var addedBy: String
        /// The adder's name as the roster last recorded it, even if they have left since; nil
        /// when the roster never named them.
        var addedByName: String?
        /// The position of the entry that made them a member.
        var addedAt: Int
        /// This person (★).
        var isYou: Bool

        var createdTheVault: Bool { addedBy == id }
    }

    /// The vault's name (`meta.share_name`).
    var name: String
    /// In the order they became members (this person included).
    var members: [Member]
    /// The epoch and entries of the verified roster; 0 when it could not be read.
    var epoch: UInt64 = 0
    var entries = 0
    /// Why the stored roster could not be read (then `members` is empty).
    var problem: String?
    /// Until when an invitation another process of this vault opened (`coffer share invite`)
    /// waits for its person (`meta.pending_invitation`, while that process lives); nil for none.
    var invitationWaitsUntil: Date?

    init(name: String, members: [Member], epoch: UInt64 = 0, entries: Int = 0, problem: String? = nil) {
        self.name = name
        self.members = members
        self.epoch = epoch
        self.entries = entries
        self.problem = problem
    }

    /// The summary `entries` (the stored roster, oldest first) give, verified again from entry 0
    /// (`RosterChain.verify`); a chain that does not verify leaves no member and says why.
    init(name: String, vaultID: SharedVaultID, personID: String?, entries: [RosterEntry]) {
        self.init(name: name, members: [])
        let state: RosterState
        switch RosterChain.verify(entries: entries, vaultID: vaultID) {
        case .success(let verified): state = verified
        case .failure(let problem):
            self.problem = "The roster this device keeps does not verify: \(problem)"
            return
        }
        // A member who added someone may have left: their name is still in the entry that added them.
        var names: [String: String] = [:]
        for entry in entries {
            switch entry.change {
            case .create(let person), .add(let person): names[person.id] = person.name
            case .remove, .recovery, .rotate: break
            }
        }
        members = state.members.values
            .sorted { ($0.addedAt, $0.person.id) < ($1.addedAt, $1.person.id) }
            .map { member in
                Member(id: member.person.id, name: member.person.name, account: member.person.account,
                       addedBy: member.addedBy, addedByName: names[member.addedBy], addedAt: member.addedAt,
                       isYou: member.person.id == personID)
            }
        epoch = state.epoch
        self.entries = entries.count
    }

    /// "family · shared": what the title bar names the vault by.
    var title: String { "\(TerminalText.name(name)) · shared" }
}
