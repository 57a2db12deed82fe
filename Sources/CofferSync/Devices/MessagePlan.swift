import CofferCore
import Foundation

/// What handling writes, as plain lists, executed in the transaction that read the inbox.
struct MessagePlan: Equatable {
    /// Ids to remember as handled, with their expiry (applied or ignored messages).
    var handled: [(id: String, expires: Int64)] = []
    /// Ids whose server copy is to be deleted (marked done in the inbox).
    var done: [String] = []
    /// A remote lock (or sign-out) this process obeys, with the sender's name.
    var lock: DeviceLockNotice?
    /// The lock written to `remote_lock` for every screen of this vault: also one ignored here.
    var lockRequest: DeviceLockNotice?
    var signOut = false
    /// The account's next password (`credentials`), tried when the current one is refused.
    var nextPassword: String?

    static func == (lhs: MessagePlan, rhs: MessagePlan) -> Bool {
        lhs.handled.map(\.id) == rhs.handled.map(\.id) && lhs.handled.map(\.expires) == rhs.handled.map(\.expires)
            && lhs.done == rhs.done && lhs.lock == rhs.lock && lhs.lockRequest == rhs.lockRequest && lhs.signOut == rhs.signOut && lhs.nextPassword == rhs.nextPassword
    }

    /// Whether the vault must lock once the plan committed.
    var locks: Bool { lock != nil || signOut }

    mutating func add(_ decision: MessageDecision, id: String, expires: Int64, senderName: String) {
        switch decision {
        case .alreadyDone, .wait:
            return
        case .refuse:
            done.append(id)
        case .ignoreLockBeforeUnlock(let content):
            handled.append((id, expires))
            done.append(id)
            request(DeviceLockNotice(from: senderName, at: Timestamp(milliseconds: content.created)))
        case .apply(let content):
            handled.append((id, expires))
            done.append(id)
            switch content.topic {
            case .lock:
                lock = DeviceLockNotice(from: senderName, at: Timestamp(milliseconds: content.created))
                request(lock)
            case .signout:
                // Signing out locks too, and the lock screen says who asked.
                signOut = true
                lock = DeviceLockNotice(from: senderName, at: Timestamp(milliseconds: content.created))
                request(lock)
            case .credentials: nextPassword = content.data
            }
        }
    }

    /// Keeps the newest lock request.
    private mutating func request(_ notice: DeviceLockNotice?) {
        guard let notice, notice.at > (lockRequest?.at ?? Timestamp(milliseconds: .min)) else { return }
        lockRequest = notice
    }

    func execute(in store: SyncStore) throws {
        for entry in handled { try store.recordHandled(entry.id, expires: entry.expires) }
        for id in done { try store.markDone(id) }
        if let lockRequest {
            try store.setMeta([.remoteLock: String(decoding: try JSONEncoder().encode(lockRequest), as: UTF8.self)])
        }
        if let nextPassword { try store.setMeta([.accountNextPassword: nextPassword]) }
        if signOut { try SyncAccount.forget(in: store) }
    }
}
