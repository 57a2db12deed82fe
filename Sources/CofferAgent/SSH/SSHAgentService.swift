import CofferCore
import Crypto
import Foundation

/// What the agent answers on its SSH socket, with the `ssh-key` items of the vault it holds.
///
/// Keys are read at each request from the `ssh-key` items the agent's index names (`AgentIndexKeeper`,
/// shared with `AgentService`: brought up to date after any commit), opened for the request, so a key added, edited or removed by any command or
/// device is offered from the next one. Parsed keys are kept only while their item's entry is
/// unchanged. They are offered in a stable order: by title, then id. A locked vault, or one
/// `ssh-add -x` locked, offers none and signs nothing. A key's item may limit it to hosts (`SSHSession`) and ask for confirmation
/// of each use (`SSHAskpass`, run by the server on the connection's own thread).
final class SSHAgentService: @unchecked Sendable {
    /// What to do with a message: answer it, or ask the user first and then sign.
    enum Outcome: Sendable {
        /// The reply, and whether it was a use of the vault (a signature or a key stored), which
        /// restarts the agent's idle clock.
        case reply(Data, isUse: Bool)
        case confirmThenSign(SSHKey, data: Data, flags: UInt32, question: String)
    }

    let vault: Vault
    private let stateLock = NSLock()
    /// Set by `ssh-add -x`: a MAC of its passphrase under a key made for it, checked by `ssh-add -X`.
    private var lockProof: (key: SymmetricKey, mac: HashedAuthenticationCode<SHA256>)?
    private let knownHosts: @Sendable () -> KnownHosts
    private let index: AgentIndexKeeper
    /// Each item's key as last parsed, with the title and entry it was parsed from.
    private var parsed: [String: (title: String, entry: Entry, key: SSHOfferedKey)] = [:]

    init(vault: Vault, index: AgentIndexKeeper, knownHosts: @escaping @Sendable () -> KnownHosts = { KnownHosts.load() }) {
        self.vault = vault
        self.index = index
        self.knownHosts = knownHosts
    }

    /// The outcome of a message body on a connection whose binds `session` holds (updated by
    /// `session-bind`).
    func answer(_ body: Data, session: inout SSHSession) async -> Outcome {
        let request: SSHAgentRequest
        do {
            request = try SSHAgentRequest(body: body)
        } catch {
            return .reply(SSHAgentReply.failure, isUse: false)
        }
        switch request {
        case .identities:
            let current = session
            let offered = await keys().filter { current.mayOffer($0.hosts, knownHosts: knownHosts) }
            return .reply(SSHAgentReply.identities(offered.map { ($0.key.publicKeyBlob, $0.key.comment) }), isUse: false)
        case .sign(let blob, let data, let flags):
            let current = session
            guard let offered = await keys().first(where: { $0.key.publicKeyBlob == blob }),
                  current.maySign(offered.hosts, knownHosts: knownHosts) else {
                return .reply(SSHAgentReply.failure, isUse: false)
            }
            if offered.confirms {
                return .confirmThenSign(offered.key, data: data, flags: flags,
                                        question: "Allow use of the SSH key “\(TerminalText.line(offered.title))” "
                                            + "(\(offered.key.fingerprint))?")
            }
            return Self.sign(with: offered.key, data, flags: flags)
        case .add(let key):
            // Through a forwarded agent a server could fill the vault, and every device, with keys.
            guard !session.isForwarded else { return .reply(SSHAgentReply.failure, isUse: false) }
            let isStored = await store(key)
            return .reply(isStored ? SSHAgentReply.success : SSHAgentReply.failure, isUse: isStored)
        case .lock(let passphrase):
            return .reply(lock(with: passphrase) ? SSHAgentReply.success : SSHAgentReply.failure, isUse: false)
        case .unlock(let passphrase):
            if unlock(with: passphrase) { return .reply(SSHAgentReply.success, isUse: false) }
            // As OpenSSH's agent does: a wrong guess costs time.
            try? await Task.sleep(for: .milliseconds(500))
            return .reply(SSHAgentReply.failure, isUse: false)
        case .sessionBind(let hostKey, let sessionID, let signature, let isForwarding):
            let isBound = session.bind(hostKey: hostKey, sessionID: sessionID, signature: signature, isForwarding: isForwarding)
            return .reply(isBound ? SSHAgentReply.success : SSHAgentReply.failure, isUse: false)
        case .addConstrained, .otherExtension, .unsupported:
            return .reply(SSHAgentReply.failure, isUse: false)
        }
    }

    /// The signature reply, or a failure (an RSA key asked for SHA-1).
    static func sign(with key: SSHKey, _ data: Data, flags: UInt32) -> Outcome {
        guard let signature = try? key.signature(for: data, flags: flags) else { return .reply(SSHAgentReply.failure, isUse: false) }
        return .reply(SSHAgentReply.signature(signature), isUse: true)
    }

    var isLockedByClient: Bool { stateLock.withLock { lockProof != nil } }

    /// The vault's usable SSH keys in the order offered; none when locked. A disabled item, or one
    /// whose key does not read, is left out.
    func keys() async -> [SSHOfferedKey] {
        guard !isLockedByClient, !(await vault.isLocked),
              let listed = try? await index.read(vault, { index, vault in try vault.openListedItems(index.sshKeyIDs) }) else { return [] }
        let items = listed.compactMap { entry -> Item? in
            guard case .ready(let item) = entry.state, item.entry.kind == ItemKind.sshKey.name, !item.disabled,
                  !item.isTrashed else { return nil }
            return item
        }.sorted { ($0.title.lowercased(), $0.id) < ($1.title.lowercased(), $1.id) }
        return stateLock.withLock {
            var kept: [String: (title: String, entry: Entry, key: SSHOfferedKey)] = [:]
            let keys = items.compactMap { item -> SSHOfferedKey? in
                if let old = parsed[item.id], old.title == item.title, old.entry == item.entry {
                    kept[item.id] = old
                    return old.key
                }
                guard let key = SSHOfferedKey(item: item) else { return nil }
                kept[item.id] = (item.title, item.entry, key)
                return key
            }
            parsed = kept
            return keys
        }
    }

    /// `ssh-add KEY`: kept as an `ssh-key` item titled by its comment (else its fingerprint). A key
    /// the vault already holds is not stored twice.
    private func store(_ key: SSHKey) async -> Bool {
        guard !isLockedByClient else { return false }
        if await keys().contains(where: { $0.key.publicKeyBlob == key.publicKeyBlob }) { return true }
        let title = key.comment.isEmpty ? "SSH key \(key.fingerprint)" : key.comment
        let isAdded = (try? await vault.add(key.item(titled: title))) != nil
        await index.noteWrite(of: nil, in: vault)
        return isAdded
    }

    private func lock(with passphrase: Data) -> Bool {
        stateLock.withLock {
            guard lockProof == nil else { return false }
            let key = SymmetricKey(size: .bits256)
            lockProof = (key, HMAC<SHA256>.authenticationCode(for: passphrase, using: key))
            return true
        }
    }

    private func unlock(with passphrase: Data) -> Bool {
        stateLock.withLock {
            guard let proof = lockProof,
                  HMAC<SHA256>.isValidAuthenticationCode(proof.mac, authenticating: passphrase, using: proof.key) else {
                return false
            }
            lockProof = nil
            return true
        }
    }
}
