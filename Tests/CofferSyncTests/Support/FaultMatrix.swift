import CofferCore
import CofferTestSupport
import Foundation

/// The axes of the server fault matrix (`SyncFaultTests.testEveryFaultKindAtEveryStep`): every
/// fault `fault-proxy.py` can inject, at every request a sync, a device command or an invitation
/// makes, and at the roster writes of a shared vault, for `COFFER_FAULT_SEEDS` seeds.
enum FaultMatrix {
    /// Every fault; `pass` is none, `shift_date` only moves the clock (`ClockSyncTests`), and
    /// `endless_next_page` is a listing that never ends, stopped by the client's fetch limits
    /// (`SyncFetchLimitTests`): once, as here, it is one more page of the same records. `huge_body`
    /// is an answer past the client's byte limit only when the test lowers that limit
    /// (`KintoFaultProxyTests`); here it would be a valid answer with spaces in front.
    static let kinds = FaultProxy.Mode.allCases.filter { ![.pass, .shiftDate, .endlessNextPage, .hugeBody, .replaceBody].contains($0) }

    /// `COFFER_FAULT_SEEDS=N` runs seeds 1…N, `A-B` seeds A…B (to replay one); default 1.
    static func seeds(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ClosedRange<Int> {
        let value = environment["COFFER_FAULT_SEEDS"] ?? ""
        let bounds = value.split(separator: "-").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if bounds.count == 2, bounds[0] >= 1, bounds[0] <= bounds[1] { return bounds[0]...bounds[1] }
        return 1...max(1, Int(value) ?? 1)
    }

    /// `COFFER_FAULT_STEPS=pairing` (or `attachments`, `sharing`, `refusals`) runs the
    /// invitation's (the files', the shared vaults', the refusals') steps only, to check a change
    /// there without the whole matrix; `all`, every step (`make reliability`); anything else, every
    /// step but the invitation's, the shared vaults' and the refusals' (their 66, 33 and 22 cells a
    /// seed take about 200 s, over a minute and about half of one: `make test` reached 31 minutes
    /// with them, 2026-12-07; `docs/figures.md`). `PairingTests` still runs every invitation step
    /// once without faults in `make test`.
    static func steps(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [FaultStep] {
        switch environment["COFFER_FAULT_STEPS"] {
        case "pairing": return FaultStep.allCases.filter(\.isPairing)
        case "attachments": return FaultStep.allCases.filter(\.isAttachment)
        case "sharing": return FaultStep.allCases.filter(\.isSharing)
        case "refusals": return FaultStep.allCases.filter(\.isRefusal)
        case "all": return FaultStep.allCases
        default: return FaultStep.allCases.filter { !$0.isPairing && !$0.isSharing && !$0.isRefusal }
        }
    }

    /// `N` in the proxy's terms: the delay, `Retry-After` or `Backoff` seconds of a fault.
    static func seconds(for kind: FaultProxy.Mode) -> Double {
        switch kind {
        case .status503RetryAfter: return 30
        case .backoffHeader: return 20
        case .delay: return 2
        case .batch409: return 5
        default: return 1
        }
    }

    /// The client's timeout: below the delay for `delay`, so that it times out.
    static func clientTimeout(for kind: FaultProxy.Mode) -> TimeInterval { kind == .delay ? 1 : 5 }

    /// Whether the fault leaves a `Backoff` deadline the client must wait out.
    static func leavesDeadline(_ kind: FaultProxy.Mode, at step: FaultStep) -> Bool {
        kind == .backoffHeader || kind == .status503RetryAfter || (kind == .batch409 && step.isBatch)
    }
}

/// Where a fault hits: one request of a sync, of a device command, of an invitation or of a
/// shared vault's roster.
enum FaultStep: String, CaseIterable, Sendable {
    case itemsFetch = "items fetch"
    case keystoresFetch = "keystores fetch"
    case itemsBatch = "items batch"
    case keystoresBatch = "keystores batch"
    /// The PUT of this device's own record (an unlocked sync after a rename).
    case deviceRegister = "device register"
    /// The listing of the registry (`device list`).
    case devicesFetch = "devices fetch"
    /// The creation of a queued message (the outbox).
    case outboxPush = "outbox push"
    /// The listing of the messages for this device.
    case messagesFetch = "messages fetch"
    /// The deletion of a handled message.
    case messagesDelete = "messages delete"
    /// The inviter creates the rendezvous account.
    case rendezvousOpen = "rendezvous open"
    /// The inviter writes its offer.
    case inviteWrite = "invite write"
    /// The claimant writes its claim.
    case claimWrite = "claim write"
    /// The inviter writes its key, having read the claim.
    case keyWrite = "key write"
    /// The claimant writes its key, having read the inviter's.
    case revealWrite = "reveal write"
    /// The inviter writes its answer.
    case answerWrite = "answer write"
    /// The first chunk of a file this device added goes up.
    case attachmentUpload = "attachment upload"
    /// The listing of the files' chunks, after items arrived.
    case attachmentsList = "attachments list"
    /// The first chunk of another device's file comes down.
    case attachmentDownload = "attachment download"
    /// The listing of a shared vault's roster, the first request of its sync.
    case rosterFetch = "roster fetch"
    /// An invitation's `add` written to a shared vault's roster (`If-None-Match: *`).
    case rosterAppend = "roster append"
    /// A revocation's `remove` written to a shared vault's roster.
    case revocation = "revocation"
    /// The batch that puts this device's item back over garbage the server sent (issue 41: the
    /// mirror's refusal, `Vault.checkMirroredItems`).
    case itemsRefusal = "items refusal"
    /// The batch that puts this device's keystore back over garbage the server sent
    /// (`Vault.reconcileKeystore`'s refusal).
    case keystoresRefusal = "keystores refusal"

    var isBatch: Bool { [.itemsBatch, .keystoresBatch, .itemsRefusal, .keystoresRefusal].contains(self) }
    var isItemsOrKeystores: Bool { [.itemsFetch, .keystoresFetch, .itemsBatch, .keystoresBatch].contains(self) }
    var isPairing: Bool { [.rendezvousOpen, .inviteWrite, .claimWrite, .keyWrite, .revealWrite, .answerWrite].contains(self) }
    var isAttachment: Bool { [.attachmentUpload, .attachmentsList, .attachmentDownload].contains(self) }
    var isSharing: Bool { [.rosterFetch, .rosterAppend, .revocation].contains(self) }
    var isRefusal: Bool { self == .itemsRefusal || self == .keystoresRefusal }

    /// The proxy's `match` (a substring of the path and query); each scenario makes sure the first
    /// request that matches is the step's own (`skip` passes that many before it).
    func match(deviceID: String = "") -> String {
        switch self {
        case .itemsFetch: return "/collections/items/records"
        case .keystoresFetch: return "/collections/keystores/records"
        // After a refusal only what was refused is pending: its batch is the sync's first.
        case .itemsBatch, .keystoresBatch, .itemsRefusal, .keystoresRefusal: return "/batch"
        case .deviceRegister: return "/collections/devices/records/\(deviceID)"
        case .devicesFetch: return "/collections/devices/records"
        case .outboxPush, .messagesDelete: return "/collections/messages/records/"
        case .messagesFetch: return "/collections/messages/records?"
        case .rendezvousOpen: return "/accounts/"
        case .inviteWrite: return "/collections/rendezvous/records/invite"
        case .claimWrite: return "/collections/rendezvous/records/claim"
        case .keyWrite: return "/collections/rendezvous/records/key"
        case .revealWrite: return "/collections/rendezvous/records/reveal"
        case .answerWrite: return "/collections/rendezvous/records/answer"
        // A chunk's own URL (PUT up, GET down); the scenario makes sure no other is asked first.
        case .attachmentUpload, .attachmentDownload: return "/collections/attachments/records/"
        case .attachmentsList: return "/collections/attachments/records?"
        case .rosterFetch: return "/collections/roster/records?"
        // A roster record's own URL: the PUT of the entry (the listings before it have a query).
        case .rosterAppend, .revocation: return "/collections/roster/records/"
        }
    }

    /// The keystores are pushed after the items: the second `/batch` of the sync.
    var skip: Int { self == .keystoresBatch ? 1 : 0 }
}
