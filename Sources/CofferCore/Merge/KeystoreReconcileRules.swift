/// Reconcile's decision for a keystore the server sent, against this device's own (Lockbox's sync
/// design: the union of keys; a passphrase changed on one device wins only if it is provably newer),
/// pure.
public enum KeystoreReconcileDecision: Equatable {
    /// The server deleted its keystore, or sent one that does not open under the vault key (garbage,
    /// another vault's, bytes that are not a keystore): refused, ours goes up again over it.
    case refuse
    /// The union of both key rings, sealed under the passphrase wrapping of `wrappingOf`.
    case merge(wrappingOf: Side)

    public enum Side: Equatable { case local, remote }
}

public enum KeystoreReconcileRules {
    /// - Parameters:
    ///   - remoteIsDeleted: the server's change is a deletion (Coffer never deletes a keystore).
    ///   - remoteOpens: the server's ring opens under a vault key this session holds.
    ///   - remoteIsOlder: the server's version is older than stable (a rollback or a replay).
    ///   - localChangedWrapping: the passphrase changed here since stable (or there is no stable).
    ///   - local, remote: each side's wrapping, its tag checked under the vault key.
    public static func decide(remoteIsDeleted: Bool, remoteOpens: Bool, remoteIsOlder: Bool, localChangedWrapping: Bool,
                              local: WrappingClaim, remote: WrappingClaim) -> KeystoreReconcileDecision {
        if remoteIsDeleted || !remoteOpens { return .refuse }
        return .merge(wrappingOf: wrappingSide(local: local, remote: remote, remoteIsOlder: remoteIsOlder,
                                               localChangedWrapping: localChangedWrapping))
    }

    /// Which wrapping the merged keystore keeps. The server's only when it is provably newer: its
    /// tag checks out and names a later revision than ours. Only a holder of the vault key makes a
    /// tag, and `Vault.changePassphrase` never asks less Argon2id than the vault did, so every
    /// device orders wrappings alike (a rule that also weighed the parameters would have two
    /// devices send their own wrapping back and forth). An untagged wrapping is weighed by the rule
    /// of the versions before tags (the one changed since stable; never an older record's, never
    /// weaker parameters) only while ours is untagged too: a fleet of older versions still passes a
    /// passphrase change around, and once a device tags, no untagged or forged wrapping replaces it.
    public static func wrappingSide(local: WrappingClaim, remote: WrappingClaim, remoteIsOlder: Bool,
                                    localChangedWrapping: Bool) -> KeystoreReconcileDecision.Side {
        if remote.isAuthentic { return remote.revision > local.revision ? .remote : .local }
        if remote.isTagged || local.isTagged || !remote.isAtLeastAsStrong(as: local.kdf) { return .local }
        return remoteIsOlder || localChangedWrapping ? .local : .remote
    }
}

/// What taking in the server's keystore did (`Vault.reconcileKeystore`).
public enum KeystoreReconcileOutcome: Sendable, Equatable {
    /// No keystore from the server waited.
    case nothing
    /// Its keys are ours now (and ours go up if we hold more, or a newer wrapping).
    case merged
    /// A shared vault's later generation this session cannot open yet (§17), or a personal vault's
    /// new keys made at a device's removal, under a passphrase this session was not opened with
    /// (§9): it waits.
    case waiting
    /// Not ours (a deletion, or it does not open under the vault key): ours was kept and goes up over it.
    case refused
}
