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
                let devices = await ReviewDevices.read(from: vault)
                return try await vault.reviews().map { ConflictReview($0, devices: devices) }
            },
            resolveReview: { vault, review in
                try await vault.resolveReview(review.itemID, choosing: review.swappedChoices)
            },
            loadDevices: { vault in try await engines.required(for: vault).devices() },
            sendToDevice: { vault, topic, id in try await engines.required(for: vault).send(topic, to: [id]) },
            removeDevice: { vault, id in try await engines.required(for: vault).removeDevice(id, rotate: false) })
        return await CofferScreen.run(vaultPath: vaultPath, services: services, options: options)
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

    /// The engine, or a clear error for a vault without an account.
    func required(for vault: Vault) throws -> SyncEngine {
        guard let engine = try engine(for: vault) else {
            throw CommandFailure("This vault has no sync account; set one with `coffer account login`")
        }
        return engine
    }
}
