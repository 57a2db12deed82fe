import CofferCore
import CofferSync
import CofferTUI
import Foundation

/// `coffer` with no command: the screen, wired to the sync engine and the vault's reviews.
enum ScreenLauncher {
    static func run(vaultPath: String, options: ScreenOptions) async -> Int32 {
        let engines = EngineCache()
        let services = ScreenServices(
            runSync: { vault, progress in
                do {
                    guard let engine = try await engines.engine(for: vault) else {
                        return SyncReport(error: .syncAuth, message: "This vault has no sync account; set one with `coffer account login`.")
                    }
                    return await engine.sync(progress: progress)
                } catch {
                    return SyncReport(error: .network, message: "\(error)")
                }
            },
            loadReviews: { vault in
                try await vault.reviews().map { review in
                    ConflictReview(itemID: review.id, title: review.title, fields: review.conflicts.map(screenField))
                }
            },
            resolveReview: { vault, review in
                // Only the choices the user swapped: the merge's own are already in the item.
                let swapped = review.fields.filter { $0.chosen != $0.mergeChoice }
                try await vault.resolveReview(review.itemID, choosing: Dictionary(
                    swapped.map { ($0.name, coreChoice($0.chosen)) }, uniquingKeysWith: { _, last in last }))
            })
        return await CofferScreen.run(vaultPath: vaultPath, services: services, options: options)
    }
}

/// A reviewed field as the screen shows it.
private func screenField(_ conflict: ItemMerge.FieldConflict) -> FieldConflict {
    let changedOn: FieldConflict.ChangedOn = switch conflict.changedOn {
    case .both: .both
    case .local: .local
    case .remote: .remote
    }
    return FieldConflict(name: conflict.field, local: conflict.local, remote: conflict.remote, combined: conflict.combined,
                         changedOn: changedOn, chosen: screenChoice(conflict.chosen))
}

private func screenChoice(_ choice: ItemMerge.Choice) -> FieldConflict.Choice {
    switch choice {
    case .local: .local
    case .remote: .remote
    case .combined: .combined
    }
}

private func coreChoice(_ choice: FieldConflict.Choice) -> ItemMerge.Choice {
    switch choice {
    case .local: .local
    case .remote: .remote
    case .combined: .combined
    }
}

/// One engine per vault, kept between syncs: its client remembers the server's limits and
/// Backoff, and the account is read once.
actor EngineCache {
    private var engine: SyncEngine?

    func engine(for vault: Vault) throws -> SyncEngine? {
        if let engine, engine.vault === vault { return engine }
        engine = try SyncEngine.forAccount(of: vault)
        return engine
    }
}
