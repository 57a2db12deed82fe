import CofferAgent
import CofferCore
import Foundation

extension FuzzChecks {
    /// What a stranger may send the agent's SSH socket, and the key files `coffer ssh import`
    /// reads (`FuzzSSHAgent`). The first byte picks the check:
    /// - even: the rest as an ssh-agent message body: it parses or is refused with `SSHKeyError`,
    ///   never a crash; a key it carries (ADD_IDENTITY) writes back to bytes that read as the same key;
    /// - odd: the rest as a key file's text: a key read from it writes to a file that reads back
    ///   with the same public key and comment.
    public static func sshAgent(_ data: Data) throws {
        guard let selector = data.first else { return }
        let rest = Data(data.dropFirst())
        if selector % 2 == 0 {
            guard rest.count <= SSHAgentRequest.maximumLength, let request = try? SSHAgentRequest(body: rest) else { return }
            guard case .add(let key) = request else { return }
            var writer = SSHWireWriter()
            key.write(to: &writer)
            var reader = SSHWireReader(writer.data)
            let again = try SSHKey.read(from: &reader)
            try reader.expectEnd()
            guard again.publicKeyBlob == key.publicKeyBlob, again.comment == key.comment else {
                throw FuzzViolation("an added key does not read back as itself")
            }
        } else {
            guard let key = try? OpenSSHKeyFile.read(String(decoding: rest, as: UTF8.self)) else { return }
            let again = try OpenSSHKeyFile.read(OpenSSHKeyFile.text(of: key))
            guard again.publicKeyBlob == key.publicKeyBlob, again.comment == key.comment else {
                throw FuzzViolation("a key file does not read back as the same key")
            }
        }
    }
}
