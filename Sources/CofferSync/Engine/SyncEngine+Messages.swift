import CofferCore
import Foundation

/// The device and message steps of a sync (architecture §9), after the items and keystores. An idle
/// sync adds one request: the messages listing, answered 304.
extension SyncEngine {
    func runDeviceSteps(_ context: SyncContext, into report: inout SyncReport) async throws {
        let now = Timestamp(self.now()).milliseconds
        if try await DeviceRegisterStep.run(context, now: now) { logger.info("devices: this device's record published") }
        let sent = try await OutboxPushStep.run(context)
        CrashPoint.reach("sync.messages.fetch.before")
        let listed = try await MessageFetchStep.run(context)
        CrashPoint.reach("sync.messages.fetch.after")
        let handled = try await MessageHandleStep.run(context, now: now)
        report.remoteLock = handled.lock
        CrashPoint.reach("sync.messages.handle.after")
        let deleted = try await MessageDeleteStep.run(context, now: now)
        if handled.signedOut {
            // Retired: its record leaves the registry while this sync still holds the credentials.
            try await client.deleteRecord(.devices, id: try vault.deviceID())
            return
        }
        if try await RotationStep.run(context, now: now), let account = try SyncAccount.load(from: vault.database) {
            client = KintoClient(server: account.server, credentials: account.credentials, bucket: client.bucket,
                                 bucketIsShared: client.bucketIsShared)
            logger.info("devices: the account password was rotated")
        }
        logger.info("messages: sent \(sent), listed \(listed), applied \(handled.applied), refused \(handled.refused), waiting \(handled.waiting), deleted \(deleted)")
    }

    /// After a refusal of the credentials: takes the password another device sent
    /// (`device rm --rotate`), or the one of a rotation this device started and crashed in, for
    /// this and later syncs. True when there was one.
    func adoptNextPassword() throws -> Bool {
        let rotation = try vault.database.meta(.pendingRotation)
            .flatMap { try? JSONDecoder().decode(RotationStep.Pending.self, from: Data($0.utf8)) }
        guard var account = try SyncAccount.load(from: vault.database),
              let next = try vault.database.meta(.accountNextPassword) ?? rotation?.password ?? personalVaultPassword(of: account),
              next != account.password else { return false }
        account.password = next
        try vault.database.syncWrite { store in
            try store.setMeta([.accountPassword: next, .accountNextPassword: nil, .pendingRotation: nil])
        }
        client = KintoClient(server: account.server, credentials: account.credentials, bucket: client.bucket,
                             bucketIsShared: client.bucketIsShared)
        logger.info("sync: adopted the account password sent by another device")
        return true
    }

    /// A shared vault syncs with its person's account, whose password their personal vault keeps
    /// up to date (`device rm --rotate`): its current one when it is the same account.
    private func personalVaultPassword(of account: SyncAccount) -> String? {
        guard vault.sharedVaultID != nil, let path = try? vault.database.meta(.sharePersonalVault),
              let personal = try? VaultDatabase.open(at: path), let own = try? SyncAccount.load(from: personal),
              own.user == account.user, own.server == account.server else { return nil }
        return own.password
    }
}
