import Foundation

/// A shared vault's roster as a whole (architecture §17): verifying the chain a server serves,
/// and (`RosterChain+Signing.swift`) making the next entry of it.
public enum RosterChain {
    /// The most entries a roster may have, and members a vault: far above any household or team,
    /// low enough that verifying the whole chain on every sync stays cheap.
    public static let entryLimit = 10_000
    public static let memberLimit = 1_000

    /// The state `entries` (in the order of their records' positions) lead to, if every entry
    /// keeps the rules; otherwise the first that breaks one.
    ///
    /// Verifying always starts at entry 0, whose vault id must be `vaultID` (the bucket's): a
    /// chain cannot be moved between vaults. A device then checks the result against the head
    /// it stored (`RosterHead.continuity(of:)`).
    public static func verify(entries: [RosterEntry], vaultID: SharedVaultID) -> Result<RosterState, RosterProblem> {
        // Refused before any signature is checked: a served chain of a million entries costs nothing.
        guard entries.count <= entryLimit else { return .failure(RosterProblem(position: entryLimit, reason: .tooManyEntries)) }
        var verifier = RosterVerifier(vaultID: vaultID)
        do throws(RosterProblem) {
            for entry in entries { try verifier.append(entry) }
        } catch {
            return .failure(error)
        }
        guard let state = verifier.state else { return .failure(RosterProblem(position: 0, reason: .noEntries)) }
        return .success(state)
    }
}
