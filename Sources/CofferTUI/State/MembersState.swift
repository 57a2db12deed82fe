/// The Members page of a shared vault (`M`, or F2 on the locked page): the members as
/// `VaultSummary.share` holds them (every reload reads the roster again), and the cursor.
///
/// The roster is not secret, so the page opens locked as well as unlocked; opened locked, the
/// vault stays locked and Esc goes back to the passphrase prompt.
struct MembersState: Sendable, Equatable {
    var cursor = 0
    /// Opened from the locked page: the vault has no keys while it shows.
    var isVaultLocked: Bool
    /// `i` showed the command that invites a person, at the foot of the page.
    var showsInvitation = false
    /// The invitation `I` opened on this page, as far as it has come (the code while it waits).
    var invitation: DeviceInvitation?
    /// The member a revocation (`X`, after its yes) is taking out, while it runs.
    var revoking: String?

    init(isVaultLocked: Bool) {
        self.isVaultLocked = isVaultLocked
    }
}
