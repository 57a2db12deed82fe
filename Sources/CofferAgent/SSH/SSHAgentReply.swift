import CofferCore
import Foundation

/// The agent's answers (draft-miller-ssh-agent §4), each a message body: type byte, contents.
enum SSHAgentReply {
    static var failure: Data { Data([SSHAgentRequest.Code.failure]) }
    static var success: Data { Data([SSHAgentRequest.Code.success]) }

    static func identities(_ keys: [(blob: Data, comment: String)]) -> Data {
        var writer = SSHWireWriter()
        writer.byte(SSHAgentRequest.Code.identitiesAnswer)
        writer.uint32(UInt32(keys.count))
        for key in keys {
            writer.string(key.blob)
            writer.text(key.comment)
        }
        return writer.data
    }

    static func signature(_ blob: Data) -> Data {
        var writer = SSHWireWriter()
        writer.byte(SSHAgentRequest.Code.signResponse)
        writer.string(blob)
        return writer.data
    }
}
