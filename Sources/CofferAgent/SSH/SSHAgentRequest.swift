import CofferCore
import Foundation

/// One request of the ssh-agent protocol (draft-miller-ssh-agent §4), read from a frame's body
/// (its type byte and what follows). The bytes are a stranger's — any process of this uid, or a
/// server through agent forwarding — so every length is checked (`SSHWireReader`) and a request
/// with bytes left over is malformed.
public enum SSHAgentRequest: Sendable {
    case identities
    case sign(keyBlob: Data, data: Data, flags: UInt32)
    case add(SSHKey)
    /// ADD_ID_CONSTRAINED: a key with a lifetime or confirmation, which Coffer cannot honour as
    /// asked, so it refuses rather than keep the key without them.
    case addConstrained
    case lock(passphrase: Data)
    case unlock(passphrase: Data)
    /// `session-bind@openssh.com`: the server's host key and the session it signed (OpenSSH ≥ 8.9).
    case sessionBind(hostKey: Data, sessionID: Data, signature: Data, isForwarding: Bool)
    /// An extension Coffer does not speak.
    case otherExtension(String)
    /// REMOVE_IDENTITY, REMOVE_ALL_IDENTITIES, smartcard requests, unknown types: refused.
    case unsupported(UInt8)

    /// The most bytes one message may have, its length word aside (OpenSSH's own agent limit).
    public static let maximumLength = 256 << 10

    enum Code {
        static let failure: UInt8 = 5
        static let success: UInt8 = 6
        static let requestIdentities: UInt8 = 11
        static let identitiesAnswer: UInt8 = 12
        static let signRequest: UInt8 = 13
        static let signResponse: UInt8 = 14
        static let addIdentity: UInt8 = 17
        static let lock: UInt8 = 22
        static let unlock: UInt8 = 23
        static let addConstrained: UInt8 = 25
        static let `extension`: UInt8 = 27
    }

    public init(body: Data) throws(SSHKeyError) {
        var reader = SSHWireReader(body)
        switch try reader.byte() {
        case Code.requestIdentities:
            self = .identities
        case Code.signRequest:
            self = .sign(keyBlob: try reader.string(), data: try reader.string(), flags: try reader.uint32())
        case Code.addIdentity:
            self = .add(try SSHKey.read(from: &reader))
        case Code.addConstrained:
            // The constraints follow the key; nothing of it is kept, so it is not read.
            self = .addConstrained
            return
        case Code.lock:
            self = .lock(passphrase: try reader.string())
        case Code.unlock:
            self = .unlock(passphrase: try reader.string())
        case Code.extension:
            let name = try reader.text()
            guard name == "session-bind@openssh.com" else {
                // Its contents are the extension's own; they are not read.
                self = .otherExtension(name)
                return
            }
            self = .sessionBind(hostKey: try reader.string(), sessionID: try reader.string(), signature: try reader.string(),
                                isForwarding: try reader.boolean())
        case let code:
            self = .unsupported(code)
            return
        }
        try reader.expectEnd()
    }
}
