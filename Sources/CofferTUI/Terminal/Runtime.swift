import CofferCore
import CofferSync
import CofferSystem
import Foundation

/// The input loop: reads a key, feeds events through `Update`, performs the effects, draws.
///
/// Runs on the main actor and never waits on slow work: key derivation, sync, vault reads and
/// clipboard helpers run in detached tasks that post their outcome to the inbox, which the loop
/// drains between keys. So the screen answers keys (and animates) while they run.
@MainActor
final class Runtime {
    private(set) var state: ScreenState
    private let screen: any Screen
    private let services: ScreenServices
    private let options: ScreenOptions
    let inbox = Inbox()
    var vault: Vault?
    /// The passphrase keys of this screen's unlock, for the other vaults of that passphrase.
    let kept = KeptPassphraseKeys()
    /// What we last put on the clipboard, to clear it only if it is still there.
    private var copied: SecureBuffer?
    private var clipboardWork: Task<Void, Never>?

    /// Reloads in flight (see `reload`).
    private var reloading = (isRunning: false, isRequestedAgain: false)
    /// The last `PRAGMA data_version` seen, and when it was asked (see `pollForChanges`).
    var changes = (token: Int?.none, checked: Date.distantPast, isChecking: false)

    /// How long one turn waits for a key while a spinner turns (its frame rate). Otherwise a turn
    /// sleeps until a key, a message from background work, or the next thing due: the next second
    /// (the status bar's clock and the countdowns), the next look for other processes' commits, a
    /// clipboard to clear or a notice to drop.
    static let animationMilliseconds = 50
    /// How many items the first frame after an unlock waits for (a few milliseconds of opening).
    static let firstItemsShown = 500
    /// Set by every event but an uneventful tick: the next turn draws. Without it a turn draws only
    /// when the second changes or a spinner turns, so an idle screen renders once a second.
    private var needsDraw = true
    private var drawnSecond = Int.min
    /// How often the screen looks for other processes' commits (architecture §8: seen within about a second).
    static let changePollInterval: TimeInterval = 0.5

    init(state: ScreenState, vault: Vault?, screen: any Screen, services: ScreenServices, options: ScreenOptions) {
        self.state = state
        self.vault = vault
        self.screen = screen
        self.services = services
        self.options = options
    }

    /// Runs until the state asks to quit; returns the exit code.
    func run() async -> Int32 {
        dispatch(.resized(screen.size))
        dispatch(.started)
        while state.exitCode == nil {
            turn(waitingAtMost: waitMilliseconds(now: services.now()))
            // Let other main-actor work in; the loop itself only blocks for one poll.
            await Task.yield()
        }
        await finish()
        return state.exitCode ?? 0
    }

    /// One turn: draw, wait briefly for input, take in finished work, let the clock tick.
    func turn(waitingAtMost milliseconds: Int) {
        let now = services.now()
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        if needsDraw || isAnimating || second != drawnSecond {
            screen.draw(Render.frame(state, size: screen.size, now: now))
            options.timing?.frameDrawn(locked: state.page.isLocked)
            needsDraw = false
            drawnSecond = second
        }
        switch screen.nextInput(waitingAtMost: milliseconds, wakingOn: inbox.wakePipe.readDescriptor) {
        case .key(let key)?:
            options.timing?.keyRead()
            dispatch(.key(key))
        case .resized(let size)?:
            dispatch(.resized(size))
        case .signal(let number)?:
            dispatch(.terminationRequested(exitCode: 128 + number))
        case nil:
            break
        }
        takeInbox()
        pollForChanges()
        dispatch(.tick)
    }

    func dispatch(_ event: ScreenEvent) {
        let effects = Update.apply(event, to: &state, now: services.now())
        if case .tick = event, effects.isEmpty {} else { needsDraw = true }
        for effect in effects { perform(effect) }
    }

    /// A spinner shows (slow work, a sync): the loop draws every turn.
    private var isAnimating: Bool { state.busy != nil || state.sync.running != nil }

    /// How long the next turn may sleep waiting for a key (see `animationMilliseconds`).
    func waitMilliseconds(now: Date) -> Int {
        if isAnimating { return Runtime.animationMilliseconds }
        var due = now.addingTimeInterval(1).timeIntervalSince1970.rounded(.down)
        if vault != nil { due = min(due, changes.checked.addingTimeInterval(Runtime.changePollInterval).timeIntervalSince1970) }
        if let clipboard = state.clipboard { due = min(due, clipboard.until.timeIntervalSince1970) }
        if let notice = state.notice { due = min(due, notice.until.timeIntervalSince1970) }
        return max(1, min(1000, Int(((due - now.timeIntervalSince1970) * 1000).rounded(.up))))
    }

    private func takeInbox() {
        for message in inbox.drain() {
            switch message {
            case .event(let event):
                dispatch(event)
                if case .itemsOpened(_, true) = event { options.timing?.allItemsOpened() }
            case .vaultOpened(let opened): vault = opened
            case .vaultEvent(let source, let event):
                if source === vault { dispatch(event) }
            case .vaultSwitched(let next, let event): adopt(next, then: event)
            case .passphraseKeys(let keys):
                // A lock since the unlock wiped the keys kept: these go too.
                if state.isLocked { keys.wrappingKey.wipe() } else {
                    kept.keep(keys)
                    rotateSharedKeysIfNeeded()
                }
            case .send(let sequence): screen.send(sequence)
            case .reloadFinished: reloadFinished()
            case .changeToken(let token): changeTokenRead(token)
            }
        }
    }

    /// Before the screen closes: finish clearing the clipboard, and drop the keys.
    private func finish() async {
        await clipboardWork?.value
        takeInbox()
        kept.wipe()
        if let vault { await vault.lock() }
    }

    // MARK: Effects

    private func perform(_ effect: Effect) {
        switch effect {
        case .createVault(let passphrase):
            createVault(passphrase)
        case .unlock(let passphrase):
            unlock(passphrase)
        case .lockVault:
            // `copied` stays: the clear that locking asks for (next effect) still needs it. Every
            // vault of the passphrase locks: the keys that would open them go.
            kept.wipe()
            guard let vault else { return }
            Task.detached { await vault.lock() }
        case .takeNewKeys:
            takeNewKeys()
        case .reload:
            reload()
        case .saveItem(let item, let base):
            save(item, base: base)
        case .deleteItem(let id, let title):
            withVault(failing: { .itemDeleteFailed(id: id, message: $0) }) { vault, inbox in
                try await vault.trash(id)  // issue 43: the trash, undone from the Trash view
                inbox.post(.itemDeleted(id: id, title: title))
            }
        case .restoreItem(let id, let title):
            withVault(failing: { .trashActionFailed(message: $0) }) { vault, inbox in
                try await vault.restore(id)
                inbox.post(.itemRestored(id: id, title: title))
            }
        case .emptyTrash:
            withVault(failing: { .trashActionFailed(message: $0) }) { vault, inbox in
                inbox.post(.trashEmptied(count: try await vault.emptyTrash()))
            }
        case .saveFile(let itemID, let fileID, let path, let replacing):
            saveFile(itemID: itemID, fileID: fileID, path: path, replacing: replacing)
        case .addFile(let itemID, let path):
            withVault(failing: ScreenEvent.fileActionFailed) { vault, inbox in
                let expanded = LocalFile.expanded(path)
                var data: Data
                do throws(LocalFile.Problem) {
                    data = try LocalFile.read(expanded, limit: Attachment.sizeLimit)
                } catch {
                    return inbox.post(.fileActionFailed(LocalFile.sentence(error, path: path, reading: true)))
                }
                defer { wipe(&data) }
                let name = (expanded as NSString).lastPathComponent
                let saved = try await vault.attach(data, named: name, to: itemID)
                inbox.post(.filesChanged(saved, addedFileID: saved.attachments.last?.id,
                                         message: "Added “\(TerminalText.line(name))” (\(Format.size(data.count)))."))
            }
        case .removeFile(let itemID, let fileID):
            withVault(failing: ScreenEvent.fileActionFailed) { vault, inbox in
                let saved = try await vault.detach(fileID, from: itemID)
                inbox.post(.filesChanged(saved, addedFileID: nil, message: "Removed the file."))
            }
        case .generatePassword(let settings):
            let outcome: ScreenEvent
            do {
                switch settings.mode {
                case .characters:
                    outcome = .passwordGenerated(try PasswordGenerator.characters(length: settings.length,
                                                                                  classes: settings.classes))
                case .words:
                    outcome = .passwordGenerated(try PasswordGenerator.words(count: settings.words))
                }
            } catch {
                outcome = .operationFailed("\(error)")
            }
            // Through the inbox: an effect must not re-enter `Update` while it is being applied.
            inbox.post(outcome)
        case .copyToClipboard(let text):
            copy(text)
        case .clearClipboard:
            clearClipboard()
        case .startSync:
            startSync()
        case .loadReviews:
            let load = services.loadReviews
            withVault(failing: ScreenEvent.reviewsLoadFailed) { vault, inbox in
                inbox.post(.reviewsLoaded(try await load(vault)))
            }
        case .resolveReview(let review):
            let resolve = services.resolveReview
            withVault { vault, inbox in
                try await resolve(vault, review)
                inbox.post(.reviewResolved(itemID: review.itemID))
            }
        case .loadDevices:
            let load = services.loadDevices
            withVault { vault, inbox in inbox.post(.devicesLoaded(try await load(vault))) }
        case .sendToDevice(let topic, let id, let name):
            let send = services.sendToDevice
            withVault { vault, inbox in
                try await send(vault, topic, id)
                inbox.post(.deviceActionFinished("Queued \(topic.rawValue) for \(name); it applies on its next sync."))
            }
        case .removeDevice(let id, let name):
            let remove = services.removeDevice
            withVault { vault, inbox in
                try await remove(vault, id)
                inbox.post(.deviceActionFinished("Removed \(name) from the account."))
            }
        case .openInvitation:
            withInvitation { vault, inbox in
                guard let account = try SyncAccount.load(from: vault.database) else {
                    return inbox.post(.invitationFinished("This vault has no sync account to share."))
                }
                let host = try await InvitationHost.open(server: account.server, kind: .device, rememberingIn: vault.database)
                inbox.post(.invitationOpened(code: host.code.description, expires: host.expires,
                                             server: account.server.absoluteString))
                let claim = try await Self.endingOnError(host, vault: vault) { try await host.waitForClaim() }
                inbox.post(.invitationClaimed(InvitationTicket(host: host, claim: claim)))
            }
        case .answerInvitation(let ticket, let allow):
            withInvitation { vault, inbox in
                let account = try SyncAccount.load(from: vault.database)
                let payload = try account.map { account in
                    try JSONSerialization.data(withJSONObject: ["server": account.server.absoluteString,
                                                                "user": account.user, "password": account.password])
                }
                try await Self.endingOnError(ticket.host, vault: vault) {
                    try await ticket.host.answer(ticket.claim, allowing: allow ? payload : nil)
                }
                try await ticket.host.close()
                try InvitationLeftover.forget(in: vault.database)
                inbox.post(.invitationFinished(allow && payload != nil
                    ? "\u{201C}\(TerminalText.name(ticket.claim.name))\u{201D} joined; nothing is left on the server."
                    : "Declined \u{201C}\(TerminalText.name(ticket.claim.name))\u{201D}; nothing was shared."))
            }
        case .openMemberInvitation:
            openMemberInvitation()
        case .answerMemberInvitation(let ticket, let allow):
            answerMemberInvitation(ticket, allow: allow)
        case .revokeMember(let id, let name):
            revokeMember(id: id, name: name)
        case .loadVaults:
            loadVaults()
        case .switchVault(let path):
            switchVault(to: path)
        case .checkHealth:
            // The items as shown now; zxcvbn over each password runs off the loop.
            let items = state.items.compactMap(\.item).filter { !$0.isTrashed }  // the trash is not checked
            let now = state.serverNow(services.now())
            let inbox = self.inbox
            Task.detached {
                do {
                    inbox.post(.healthChecked(try HealthFindings.check(items, now: now)))
                } catch {
                    inbox.post(.operationFailed("The health check stopped: \(error)"))
                }
            }
        case .redraw:
            screen.invalidate()
        case .quit:
            break
        }
    }

    /// Runs `work` off the loop with the open vault; a thrown error becomes `failing`'s event
    /// (a notice, unless the screen waits on this work: `AwaitedWork`).
    private func withVault(failing: @escaping @Sendable (String) -> ScreenEvent = ScreenEvent.operationFailed,
                           _ work: @escaping @Sendable (Vault, Inbox) async throws -> Void) {
        guard let vault else { return }
        let inbox = self.inbox
        Task.detached {
            do {
                try await work(vault, inbox)
            } catch {
                inbox.post(failing("\(error)"))
            }
        }
    }

    /// Runs `step` of `host`'s exchange; an `InvitationError` (expired, a record replaced) removes
    /// the rendezvous and the vault's note of it before it goes on to the page.
    private static func endingOnError<Result: Sendable>(_ host: InvitationHost, vault: Vault,
                                                        _ step: () async throws -> Result) async throws -> Result {
        do {
            return try await step()
        } catch let error as InvitationError {
            try? await host.remove()
            try? InvitationLeftover.forget(in: vault.database)
            throw error
        }
    }

    /// Runs an invitation's work off the loop; however it fails, the page hears that it ended
    /// (and a rendezvous left behind is removed by the next sync).
    private func withInvitation(_ work: @escaping @Sendable (Vault, Inbox) async throws -> Void) {
        guard let vault else { return }
        let inbox = self.inbox
        Task.detached {
            do {
                try await work(vault, inbox)
            } catch let error as InvitationError {
                inbox.post(.invitationFinished(error.userMessage))
            } catch let error as KintoError {
                inbox.post(.invitationFinished(error.userMessage))
            } catch {
                inbox.post(.invitationFinished("The invitation stopped: \(error)"))
            }
        }
    }

    private static func buffer(_ secret: SecretText) -> SecureBuffer {
        var bytes = Array(secret.revealed.utf8)
        defer { wipe(&bytes) }
        return SecureBuffer(copying: bytes)
    }

    private func createVault(_ passphrase: SecretText) {
        let buffer = Runtime.buffer(passphrase)
        let path = state.vaultPath
        let kdf = options.kdf
        let inbox = self.inbox
        Task.detached {
            do {
                let vault = try Vault.create(at: path, passphrase: buffer, kdf: kdf ?? Argon2id.calibrate())
                let summary = try VaultSummary(of: vault)
                inbox.post(.vaultOpened(vault))
                inbox.post(.vaultCreated(summary))
            } catch {
                inbox.post(.vaultCreationFailed("\(error)"))
            }
        }
    }

    private func unlock(_ passphrase: SecretText) {
        guard let vault else { return }
        let buffer = Runtime.buffer(passphrase)
        let inbox = self.inbox
        let timing = options.timing
        Task.detached {
            do {
                // Kept once the screen shows the vault unlocked (an unlock that fails after the
                // keys drops them): they open the other vaults of this passphrase.
                let keys = try await vault.unlock(passphrase: buffer)
                timing?.unlockKeysReady()
                // The first page is drawn from the first items opened; the rest fill in behind
                // (a 100,000-item vault takes seconds to open), the screen answering keys meanwhile.
                let summary = try VaultSummary(of: vault)
                var isFirst = true
                let items = try await vault.listItems(reportingFirst: Runtime.firstItemsShown) { opened in
                    let shown = opened.map(ScreenItem.init)
                    if isFirst { inbox.post(.unlocked(items: shown, summary: summary)); inbox.post(.passphraseKeys(keys)) }
                    inbox.post(.itemsOpened(shown, isComplete: false))
                    isFirst = false
                }.map(ScreenItem.init)
                if isFirst { inbox.post(.unlocked(items: items, summary: summary)); inbox.post(.passphraseKeys(keys)) }
                if let arrived = try? await vault.arrivedAttachmentIDs() { inbox.post(.arrivedFilesRead(arrived)) }
                inbox.post(.itemsOpened(items, isComplete: true))
            } catch CoreError.wrongPassphrase {
                inbox.post(.unlockFailed(.wrongPassphrase))
            } catch CoreError.locked {
                // A shared vault's new epoch arrived while it opened and its key could not be
                // taken (the sync says why): "locked" after the right passphrase helps nobody.
                inbox.post(.unlockFailed(.other("The vault's members changed while it opened; unlock again to take its new keys.")))
            } catch {
                inbox.post(.unlockFailed(.other("\(error)")))
            }
        }
    }

    /// Reads the counts, and the items when unlocked. One reload at a time: a request during one
    /// runs once more after it, so an older listing never lands after a newer one.
    private func reload() {
        guard let vault else { return }
        guard !reloading.isRunning else {
            reloading.isRequestedAgain = true
            return
        }
        reloading.isRunning = true
        let inbox = self.inbox
        // Asked while the screen is locked, a reload reads counts only, even if an unlock finishes
        // first: its listing of every item would hold the vault ahead of the unlock's own, which
        // draws the first page from the first items opened.
        let listsItems = !state.isLocked
        let writesSeen = state.localWrites
        let shownUnreadable = state.items.filter { $0.item == nil }.count
        let keys = listsItems ? kept.opening(vault) : nil
        Task.detached {
            do {
                let isLocked = await vault.isLocked
                var items = !listsItems || isLocked ? nil : try? await vault.listItems().map(ScreenItem.init)
                // More items than shown no longer open: another process of this vault may have
                // given it new keys (the unlock after a revocation): the kept keys take them.
                if let keys, let listed = items, listed.filter({ $0.item == nil }).count > shownUnreadable,
                   (try? await vault.unlock(keys: keys)) != nil {
                    items = try? await vault.listItems().map(ScreenItem.init)
                }
                let summary = try VaultSummary(of: vault)
                // Of this vault only: the picker may have put another on the screen meanwhile.
                if items != nil, let arrived = try? await vault.arrivedAttachmentIDs() {
                    inbox.post(.vaultEvent(vault, .arrivedFilesRead(arrived)))
                }
                inbox.post(.vaultEvent(vault, .reloaded(items: items, summary: summary, writesSeen: writesSeen)))
            } catch {
                inbox.post(.operationFailed("\(error)"))
            }
            inbox.post(.reloadFinished)
        }
    }

    /// Unlocks the vault the engine locked for a shared vault's new epoch with the kept keys
    /// (its member secrets open with them, and the unlock takes the epoch's key and keys), then
    /// reloads; without kept keys that open it, the screen locks and asks.
    private func takeNewKeys() {
        guard let vault else { return }
        let keys = kept.opening(vault)
        let inbox = self.inbox
        Task.detached {
            if let keys, (try? await vault.unlock(keys: keys)) != nil {
                inbox.post(.vaultChangedElsewhere)
            } else {
                inbox.post(.newKeysNeedUnlock)
            }
        }
    }

    private func reloadFinished() {
        reloading.isRunning = false
        if reloading.isRequestedAgain {
            reloading.isRequestedAgain = false
            reload()
        }
    }

    /// Asks SQLite, at most every `changePollInterval`, whether another process committed to the
    /// vault since the last look; the answer comes back as `.changeToken`. One look at a time.
    private func pollForChanges() {
        guard let vault, !changes.isChecking, Date().timeIntervalSince(changes.checked) >= Runtime.changePollInterval else {
            return
        }
        changes.isChecking = true
        changes.checked = Date()
        let inbox = self.inbox
        Task.detached {
            inbox.post(.changeToken(try? vault.database.externalChangeToken()))
        }
    }

    private func changeTokenRead(_ token: Int?) {
        changes.isChecking = false
        guard let token else { return }
        // The first look reloads too: a commit between opening the vault and that look would be missed.
        if token != changes.token { dispatch(.vaultChangedElsewhere) }
        changes.token = token
    }

    private func save(_ item: Item, base: Item?) {
        guard let vault else { return }
        let inbox = self.inbox
        // Custom fields the form added get their ids here: `Update` makes no random numbers.
        let named = ItemForm.givingIDs(toFieldsAddedIn: item, over: base, newID: Item.newID)
        Task.detached {
            do {
                // A PNG's path in the TOTP field: the QR code's URI is what is stored.
                let item = try TOTPImageField.resolving(named)
                guard let base else {
                    var stored = item
                    stored.id = Item.newID()
                    stored = try await vault.add(stored)
                    inbox.post(.itemSaved(stored))
                    return
                }
                let saved = try await vault.update(item, from: base)
                inbox.post(.itemSaved(saved.item, mergedConflicts: saved.mergedWithNewer ? saved.conflicts : nil))
            } catch CoreError.invalidItem(_, let problems) {
                inbox.post(.itemSaveFailed(.invalid(problems)))
            } catch CoreError.removedMeanwhile {
                inbox.post(.itemSaveFailed(.removedMeanwhile))
            } catch {
                inbox.post(.itemSaveFailed(.other("\(error)")))
            }
        }
    }

    /// Writes the item's file to the path typed (see `LocalFile.write`); a file already there
    /// comes back as `.fileExists`, for the person to confirm.
    /// Its failures are `.operationFailed`: not awaited, they must not end an awaited addition's wait.
    private func saveFile(itemID: String, fileID: String, path: String, replacing: Bool) {
        withVault { vault, inbox in
            let item = try await vault.item(itemID)
            let (attachment, opened) = try await vault.attachmentData(fileID, of: item)
            var data = opened
            defer { wipe(&data) }
            do throws(LocalFile.Problem) {
                try LocalFile.write(data, to: LocalFile.expanded(path), replacing: replacing)
            } catch .exists {
                return inbox.post(.fileExists(itemID: itemID, fileID: fileID, path: path))
            } catch {
                return inbox.post(.operationFailed(LocalFile.sentence(error, path: path, reading: false)))
            }
            inbox.post(.fileSaved("Saved “\(TerminalText.line(attachment.name))” (\(Format.size(data.count))) to "
                                  + "\(TerminalText.line(path))."))
        }
    }

    private func startSync() {
        guard let vault else {
            inbox.post(.syncFinished(SyncReport(error: .network, message: "There is no vault to sync yet.")))
            return
        }
        let run = services.runSync
        let inbox = self.inbox
        Task.detached {
            let report = await run(vault) { progress in inbox.post(.vaultEvent(vault, .syncProgress(progress))) }
            inbox.post(.vaultEvent(vault, .syncFinished(report)))
        }
    }

    private func copy(_ text: SecretText) {
        let value = text.revealed
        copied = Runtime.buffer(text)
        screen.send(OSC52.copy(value))
        let clipboard = services.clipboard
        let previous = clipboardWork
        clipboardWork = Task.detached {
            await previous?.value
            await clipboard.copy(value)
        }
    }

    /// Clears what we copied, unless the user copied something else since. Without a helper
    /// the clipboard cannot be read, and OSC 52 clears it regardless.
    private func clearClipboard() {
        guard let ours = copied else { return }
        copied = nil
        let clipboard = services.clipboard
        let inbox = self.inbox
        let previous = clipboardWork
        clipboardWork = Task.detached {
            await previous?.value
            guard let current = await clipboard.read() else {
                inbox.post(.send(OSC52.clear))
                return
            }
            guard SecureBuffer(copying: Array(current.utf8)).isEqual(to: ours) else { return }
            await clipboard.clear()
            inbox.post(.send(OSC52.clear))
        }
    }
}
