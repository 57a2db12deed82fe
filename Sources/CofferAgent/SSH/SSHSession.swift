import CofferCore
import Foundation

/// What one connection to the SSH socket has said about where it is used: the host keys ssh bound
/// it to with `session-bind@openssh.com`. A key limited to hosts is offered and used only on a
/// connection bound (not for forwarding) to a host key that `known_hosts` records under one of its
/// names; a connection whose bind did not verify, or that was forwarded, gets none of them.
struct SSHSession: Sendable {
    /// The host key of the newest bind ssh made itself (not for agent forwarding).
    private(set) var hostKey: Data?
    private(set) var isForwarded = false
    private(set) var hasFailedBind = false
    private var bindCount = 0

    /// OpenSSH's own agent takes at most this many binds on a connection.
    static let maximumBinds = 16

    /// Records a bind; false (and no limited key from now on) when its signature does not verify
    /// or there were too many.
    mutating func bind(hostKey: Data, sessionID: Data, signature: Data, isForwarding: Bool) -> Bool {
        bindCount += 1
        guard bindCount <= Self.maximumBinds,
              SSHSignatureCheck.isValid(signature: signature, by: hostKey, for: sessionID) else {
            hasFailedBind = true
            return false
        }
        if isForwarding { isForwarded = true } else { self.hostKey = hostKey }
        return true
    }

    /// Whether a key limited to `hosts` (empty: unlimited) may be offered here. An unbound
    /// connection (ssh-add -l) lists it, but may not sign with it (`maySign`).
    func mayOffer(_ hosts: [String], knownHosts: () -> KnownHosts) -> Bool {
        guard !hosts.isEmpty else { return true }
        if isForwarded || hasFailedBind { return false }
        guard let hostKey else { return true }
        return knownHosts().knows(hostKey, asOneOf: hosts)
    }

    func maySign(_ hosts: [String], knownHosts: () -> KnownHosts) -> Bool {
        guard !hosts.isEmpty else { return true }
        return hostKey != nil && mayOffer(hosts, knownHosts: knownHosts)
    }
}
