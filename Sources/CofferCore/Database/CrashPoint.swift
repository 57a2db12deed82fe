import Foundation

/// Named places where a test can make the process die at once, to prove a crash there loses
/// nothing (`make reliability`). `COFFER_CRASH_POINT=name` arms one; reaching it calls `_exit`
/// with `CrashPoint.exitCode`: no cleanup, no flush, as a power cut or `kill -9` would.
public enum CrashPoint {
    public static let exitCode: Int32 = 86
    public static let environmentVariable = "COFFER_CRASH_POINT"

    /// Every point in the code, for the harness that visits them all.
    public static let all: [String] = {
        var names: [String] = []
        for operation in ["vault.add", "vault.add-all", "vault.update", "vault.remove", "vault.passwd", "vault.attach",
                          "vault.detach"] {
            names += ["before-write", "inside-write", "after-write"].map { "\(operation).\($0)" }
        }
        names.append("vault.create.before-link")
        for step in ["fetch", "examine", "reconcile"] {
            for collection in ["items", "keystores"] {
                names += ["before", "inside", "after"].map { "sync.\(step).\(collection).\($0)" }
            }
        }
        for collection in ["items", "keystores"] {
            names += ["sync.push.\(collection).before", "sync.push.\(collection).after-send"]
        }
        names += ["sync.apply.before", "sync.apply.inside", "sync.apply.after", "sync.state.before"]
        names += ["sync.attachments.upload.chunk", "sync.attachments.download.chunk"]
        names += ["sync.outbox.after-send", "sync.messages.fetch.before", "sync.messages.fetch.inside",
                  "sync.messages.fetch.after", "sync.messages.handle.inside", "sync.messages.handle.after",
                  "sync.messages.delete.before", "sync.messages.delete.after-send"]
        names += ["sync.devices.register.before", "sync.devices.register.after-send"]
        names += ["before", "inside", "after"].map { "sync.devices.fetch.\($0)" }
        names += ["pair.host.after-open", "pair.host.waiting", "pair.guest.after-claim", "pair.guest.after-answer"]
        names.append("vault.join.after-link")
        // In the agent (`coffer unlock`), between its commit and its answer to the command.
        names += ["add", "update", "remove"].map { "agent.\($0).after-write" }
        return names
    }()

    /// The points of the `share` commands and of `recover` (architecture §17): tested by
    /// `ShareCommandTests` and `RecoveryKitTests`, which set up the people and kits they need, not
    /// by the harness that visits `all`.
    public static let sharing = ["share.invite.after-add", "share.revoke.after-entry", "share.revoke.after-seals",
                                 "share.rekey.inside-write", "share.rotate.after-entry", "share.copy.after-file", "recover.after-file"]

    /// Where a sync refuses what the server sent (issue 41: garbage over an item or the keystore)
    /// and puts this device's copy in its place (`Vault.checkMirroredItems`,
    /// `Vault.reconcileKeystore`): inside that write, and after it committed but before the push.
    /// Tested by `CrashPointTests` with a server that sent garbage, not by the harness that visits
    /// `all` (its scenario sends nothing to refuse).
    public static let refusals = ["sync.refuse.items.inside", "sync.refuse.items.after",
                                  "sync.refuse.keystores.inside", "sync.refuse.keystores.after"]

    /// Where the trash lets go of its items for good in one transaction (`Vault.emptyTrash`, the
    /// screen's `E`, and the unlocked sync's 30-day purge; issue 43). Tested by `SyncCommandTests`
    /// (`TrashSyncTests.swift`) with an item past its time, not by the harness that visits `all`
    /// (its scenario trashes nothing).
    public static let trash = ["before-write", "inside-write", "after-write"].map { "vault.trash-removal.\($0)" }

    private static let armed: String? = ProcessInfo.processInfo.environment[environmentVariable]

    /// Dies here if this point is armed; costs one string comparison otherwise.
    @inline(__always)
    public static func reach(_ name: @autoclosure () -> String) {
        guard let armed else { return }
        if armed == name() { _exit(exitCode) }
    }
}
