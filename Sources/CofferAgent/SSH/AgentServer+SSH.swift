import CofferCore
import Foundation

/// The agent's SSH socket: the ssh-agent protocol (draft-miller-ssh-agent), for this user's
/// processes only, beside the agent's own socket and locked with it (the server removes both).
extension AgentServer {
    func startSSH() {
        guard let ssh else { return }
        let acceptor = Thread { [self] in
            while let connection = ssh.listener.accept() {
                let thread = Thread { [self] in serveSSH(connection, with: ssh.service) }
                thread.start()
            }
        }
        acceptor.name = "coffer-agent-ssh-accept"
        acceptor.start()
    }

    /// One client: messages in order until it hangs up, stalls for `readTimeout`, or announces a
    /// message over the protocol's limit (then the connection is closed, as OpenSSH's agent does).
    /// Another uid is refused before a byte is read. A confirmation is asked on this thread, so a
    /// question left open holds only this connection.
    private func serveSSH(_ connection: AgentSocket, with service: SSHAgentService) {
        guard connection.peerUID == getuid() else { return }
        let session = SessionBox()
        while case .request(let message) = connection.receiveFrame(within: readTimeout, maximum: SSHAgentRequest.maximumLength) {
            var outcome = waitFor {
                var current = session.value
                let outcome = await service.answer(message, session: &current)
                session.value = current
                return outcome
            }
            if case .confirmThenSign(let key, let data, let flags, let question) = outcome {
                outcome = SSHAskpass.confirm(question) ? SSHAgentService.sign(with: key, data, flags: flags)
                    : .reply(SSHAgentReply.failure, isUse: false)
            }
            guard case .reply(let reply, let isUse) = outcome else { return }
            if isUse { perform(record(.used)) }
            guard (try? connection.send(reply)) != nil else { return }
        }
    }

    /// Runs `body` on the concurrency pool and waits for it on this (non-pool) thread.
    private func waitFor(_ body: @escaping @Sendable () async -> SSHAgentService.Outcome) -> SSHAgentService.Outcome {
        let semaphore = DispatchSemaphore(value: 0)
        let box = OutcomeBox()
        Task {
            box.value = await body()
            semaphore.signal()
        }
        semaphore.wait()
        return box.value ?? .reply(SSHAgentReply.failure, isUse: false)
    }
}

/// A connection's state, handed between its thread and the task that answers it (one at a time).
private final class SessionBox: @unchecked Sendable {
    var value = SSHSession()
}

private final class OutcomeBox: @unchecked Sendable {
    var value: SSHAgentService.Outcome?
}
