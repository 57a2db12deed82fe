import CofferCore
import Crypto
import Foundation

/// What the agent answers on its SSH socket, with the `ssh-key` items of the vault it holds.
///
/// Keys are read from the vault at each request, so a key added, edited or removed by any command
/// or device is offered from the next one; none is kept apart from the vault. They are offered
/// in a stable order: by title, then id. A locked vault, or one `ssh-add -x` locked, offers none
/// and signs nothing.
final class SSHAgentService: @unchecked Sendable {
    let vault: Vault
    private let stateLock = NSLock()
    /// Set by `ssh-add -x`: a MAC of its passphrase under a key made for it, checked by `ssh-add -X`.
    private var lockProof: (key: SymmetricKey, mac: HashedAuthenticationCode<SHA256>)?

    init(vault: Vault) {
        self.vault = vault
    }

    /// The reply to a message body, and whether it was a use of the vault (a signature or a key
    /// stored), which restarts the agent's idle clock.
    func answer(_ body: Data) async -> (reply: Data, isUse: Bool) {
        let request: SSHAgentRequest
        do {
            request = try SSHAgentRequest(body: body)
        } catch {
            return (SSHAgentReply.failure, false)
        }
        switch request {
        case .identities:
            return (SSHAgentReply.identities(await keys().map { ($0.publicKeyBlob, $0.comment) }), false)
        case .sign(let blob, let data, let flags):
            guard let key = await keys().first(where: { $0.publicKeyBlob == blob }),
                  let signature = try? key.signature(for: data, flags: flags) else {
                return (SSHAgentReply.failure, false)
            }
            return (SSHAgentReply.signature(signature), true)
        case .add(let key):
            return (await store(key) ? SSHAgentReply.success : SSHAgentReply.failure, true)
        case .lock(let passphrase):
            return (lock(with: passphrase) ? SSHAgentReply.success : SSHAgentReply.failure, false)
        case .unlock(let passphrase):
            if unlock(with: passphrase) { return (SSHAgentReply.success, false) }
            // As OpenSSH's agent does: a wrong guess costs time.
            try? await Task.sleep(for: .milliseconds(500))
            return (SSHAgentReply.failure, false)
        case .sessionBind:
            // Accepted so that ssh goes on; host limits (which would use it) are not built yet.
            return (SSHAgentReply.success, false)
        case .addConstrained, .otherExtension, .unsupported:
            return (SSHAgentReply.failure, false)
        }
    }

    var isLockedByClient: Bool { stateLock.withLock { lockProof != nil } }

    /// The vault's usable SSH keys in the order offered; none when locked. The comment offered is
    /// the key's own, else the item's title. A disabled item, or one whose key does not read, is
    /// left out.
    func keys() async -> [SSHKey] {
        guard !isLockedByClient, let listed = try? await vault.listItems() else { return [] }
        let items = listed.compactMap { entry -> Item? in
            guard case .ready(let item) = entry.state, item.entry.kind == ItemKind.sshKey.name, !item.disabled else { return nil }
            return item
        }.sorted { ($0.title.lowercased(), $0.id) < ($1.title.lowercased(), $1.id) }
        return items.compactMap { item in
            guard var key = try? SSHKey(item: item) else { return nil }
            if key.comment.isEmpty { key.comment = item.title }
            return key
        }
    }

    /// `ssh-add KEY`: kept as an `ssh-key` item titled by its comment (else its fingerprint). A key
    /// the vault already holds is not stored twice.
    private func store(_ key: SSHKey) async -> Bool {
        guard !isLockedByClient else { return false }
        if await keys().contains(where: { $0.publicKeyBlob == key.publicKeyBlob }) { return true }
        let title = key.comment.isEmpty ? "SSH key \(key.fingerprint)" : key.comment
        return (try? await vault.add(key.item(titled: title))) != nil
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
