/// Reconcile's decision for the keystore changed here and on the server (Lockbox's sync design: the union of
/// keys; Firefox for iOS's sync state machine: a passphrase changed on one device wins), pure.
enum KeystoreReconcileDecision: Equatable {
    /// The server deleted or lost its keystore: ours goes up again as a new record.
    case dropRemote
    /// The union of both key rings, sealed under the passphrase wrapping of `wrappingOf`.
    case merge(wrappingOf: Side)

    enum Side: Equatable { case local, remote }
}

enum KeystoreReconcileRules {
    /// - Parameters:
    ///   - remoteIsDeleted: the server's change is a deletion.
    ///   - remoteIsOlder: the server's version is older than stable (a rollback or a replay): an
    ///     old passphrase must never come back with it.
    ///   - localChangedWrapping: the passphrase changed here since stable (or there is no stable).
    static func decide(remoteIsDeleted: Bool, remoteIsOlder: Bool, localChangedWrapping: Bool) -> KeystoreReconcileDecision {
        if remoteIsDeleted { return .dropRemote }
        return .merge(wrappingOf: remoteIsOlder || localChangedWrapping ? .local : .remote)
    }
}
