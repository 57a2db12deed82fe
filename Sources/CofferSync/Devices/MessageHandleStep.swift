import CofferCore
import Foundation

/// Handles the inbox (architecture §9): read → decide (`MessageRules`) → plan (`MessagePlan`) →
/// execute, in one transaction, so an effect and its `handled` row commit together. Runs locked
/// too: expired and replayed messages are refused without a key; the rest waits for an unlock.
/// A lock or sign-out locks the vault once committed.
enum MessageHandleStep {
    struct Outcome {
        var applied = 0
        var refused = 0
        var waiting = 0
        /// Who locked this device, when a lock or sign-out was applied.
        var lock: DeviceLockNotice?
        /// A sign-out was applied: the account is forgotten.
        var signedOut = false
    }

    static func run(_ context: SyncContext, now: Int64) async throws -> Outcome {
        let vault = context.vault
        let pending = try context.database.syncRead { try $0.inbox() }.filter { !$0.isDone }
        guard !pending.isEmpty else { return Outcome() }
        let isLocked = await vault.isLocked
        var senders = try context.database.syncRead { try $0.deviceRecords() }
        if !isLocked, pending.contains(where: { message in !senders.contains { $0.id == message.record.sender } }) {
            try await DeviceFetchStep.run(context)
            senders = try context.database.syncRead { try $0.deviceRecords() }
        }
        let unlockedAt = await vault.unlockedAt?.milliseconds
        // Opened outside the transaction (the vault actor), decided and written inside it.
        var opened: [String: MessageFacts.Opened] = [:]
        for entry in pending {
            let record = entry.record
            guard MessageFacts.needsOpening(isDone: false, isHandled: false, expires: record.expires, now: now) else { continue }
            if isLocked { opened[record.id] = .locked; continue }
            guard let sender = senders.first(where: { $0.id == record.sender }),
                  let content = try? await vault.openMessage(record, from: sender) else {
                opened[record.id] = .unreadable
                continue
            }
            opened[record.id] = .content(content)
        }
        let names = isLocked ? [:] : Dictionary(try await vault.knownDevices(senders).map { ($0.id, $0.name ?? $0.id) },
                                                uniquingKeysWith: { first, _ in first })
        var outcome = Outcome()
        let plan = try context.database.syncWrite { store -> MessagePlan in
            var plan = MessagePlan()
            for entry in try store.inbox() {
                let record = entry.record
                let facts = MessageFacts(isDone: entry.isDone, isHandled: try store.isHandled(record.id), expires: record.expires,
                                         opened: opened[record.id] ?? .notTried, now: now, unlockedAt: unlockedAt)
                let decision = MessageRules.decide(facts)
                context.logger.info("message \(record.id): \(decision.logName)")
                switch decision {
                case .apply: outcome.applied += 1
                case .refuse: outcome.refused += 1
                case .wait: outcome.waiting += 1
                case .alreadyDone, .ignoreLockBeforeUnlock: break
                }
                plan.add(decision, id: record.id, expires: record.expires, senderName: names[record.sender] ?? record.sender)
            }
            try plan.execute(in: store)
            CrashPoint.reach("sync.messages.handle.inside")
            return plan
        }
        if plan.locks { await vault.lock() }
        outcome.lock = plan.lock
        outcome.signedOut = plan.signOut
        return outcome
    }
}

extension MessageDecision {
    /// For the log: never the content.
    var logName: String {
        switch self {
        case .alreadyDone: return "already done"
        case .refuse(let refusal): return "refused (\(refusal))"
        case .wait: return "waits for an unlock"
        case .ignoreLockBeforeUnlock: return "lock sent before the last unlock: ignored"
        case .apply(let content): return "applied (\(content.topic.rawValue))"
        }
    }
}
