import CofferCore

/// The agent's index (`AgentIndex`) kept true to the vault.
///
/// Another process's commit changes the vault's change token: the next request scans the rows
/// again, opening only those whose bytes changed. The agent's own write of an item reads that row
/// again (`noteWrite`); a write that may have touched any item (a sync that took something in, an
/// import) leaves the next request to scan. An idle sync's own commits leave the index as it is
/// (`SyncOutcome.tookNothingIn`): they change no item's content, and the change token counts only
/// other processes' commits.
///
/// Its state is touched only inside `Vault.isolated`: the vault's actor runs one body at a time,
/// so requests on several connections never see an index half updated.
final class AgentIndexKeeper: @unchecked Sendable {
    private var index: AgentIndex?
    /// The change token the index was last brought up to; nil: scan on the next request.
    private var token: Int?

    /// `body`'s answer, given the index brought up to date, on the vault's actor.
    func read<Result: Sendable>(_ vault: Vault, _ body: @Sendable (AgentIndex, isolated Vault) throws -> Result) async throws -> Result {
        try await vault.isolated { vault in try body(try self.current(vault), vault) }
    }

    /// The agent wrote the items `ids` names: their rows are read again, the others kept. nil:
    /// any item may have changed.
    func noteWrite(of ids: [String]?, in vault: Vault) async {
        _ = try? await vault.isolated { vault in
            guard let ids, var index = self.index else {
                self.token = nil
                return
            }
            self.index = nil // unique while it changes: updated in place, not copied
            defer { self.index = index }
            do {
                for id in ids {
                    if let scan = try vault.scanItemRow(id) { index.take(scan) } else { index.remove(id) }
                }
            } catch {
                self.token = nil
            }
        }
    }

    /// The index after a scan, when another process committed since the last one (or nothing
    /// was scanned yet, or the agent's own write asked for it).
    private func current(_ vault: isolated Vault) throws -> AgentIndex {
        let token = try vault.database.externalChangeToken()
        if let index, token == self.token { return index }
        var index = self.index ?? AgentIndex()
        self.index = nil // as in `noteWrite`; a scan that throws leaves none, and the next builds one
        let previous = index.rowCount
        var seen = [Bool](repeating: false, count: previous)
        try vault.scanItemRows(isKnown: { index.knows($0, fingerprint: $1) }) { scan in
            if scan.state == nil, let row = index.row(of: scan.id), row < previous {
                seen[row] = true
            } else {
                index.take(scan)
            }
        }
        index.clearRows(unseen: seen)
        if index.isWorthCompacting { index = index.compacted() }
        self.index = index
        self.token = token
        return index
    }
}
