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
    /// Another uid is refused before a byte is read.
    private func serveSSH(_ connection: AgentSocket, with service: SSHAgentService) {
        guard connection.peerUID == getuid() else { return }
        while case .request(let message) = connection.receiveFrame(within: readTimeout, maximum: SSHAgentRequest.maximumLength) {
            let semaphore = DispatchSemaphore(value: 0)
            let box = SSHAnswerBox()
            Task {
                box.answer = await service.answer(message)
                semaphore.signal()
            }
            semaphore.wait()
            guard let answer = box.answer else { return }
            if answer.isUse { perform(record(.used)) }
            guard (try? connection.send(answer.reply)) != nil else { return }
        }
    }
}

private final class SSHAnswerBox: @unchecked Sendable {
    var answer: (reply: Data, isUse: Bool)?
}
