import Foundation

/// What a shared vault's recovery kit brings back (architecture §17, "Recovery kit"): which vault,
/// and the member who made it — their account's name (not its password: the personal vault,
/// recovered with its own kit, syncs with it) and their two private keys. With them a new machine
/// verifies the roster, opens the epoch's key sealed to that member, and makes their copy again;
/// once that member is revoked the kit opens nothing new (the server refuses the account, and no
/// later key is sealed to them).
public struct SharedRecoveryPayload: Sendable {
    public let server: String
    public let user: String
    public let vaultID: SharedVaultID
    /// The vault's name, as its members call it (`NAME.db`).
    public let name: String
    public let person: PersonKeys

    public init(server: String, user: String, vaultID: SharedVaultID, name: String, person: PersonKeys) {
        self.server = server
        self.user = user
        self.vaultID = vaultID
        self.name = name
        self.person = person
    }

    static let kind = "shared"

    var json: Data {
        let (signing, sealing) = person.privateKeys
        func text(_ key: SecureBuffer) -> String { key.withUnsafeBytes { Data($0).base64EncodedString() } }
        let object = ["kind": Self.kind, "server": server, "user": user, "bucket": vaultID.bucket,
                      "name": name, "signing_key": text(signing), "sealing_key": text(sealing)]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// - Throws: `RecoveryKeys.Unreadable` for anything but a shared kit's payload.
    init(object: [String: String]) throws {
        guard object["kind"] == Self.kind, let server = object["server"], let user = object["user"],
              let vaultID = object["bucket"].flatMap(SharedVaultID.init(bucket:)),
              let name = object["name"], SharedVaultName.isValid(name),
              var signing = object["signing_key"].flatMap({ Data(base64Encoded: $0) }),
              var sealing = object["sealing_key"].flatMap({ Data(base64Encoded: $0) }) else {
            throw RecoveryKeys.Unreadable()
        }
        defer {
            wipe(&signing)
            wipe(&sealing)
        }
        guard let person = try? PersonKeys(signingKey: SecureBuffer(copying: signing), sealingKey: SecureBuffer(copying: sealing)) else {
            throw RecoveryKeys.Unreadable()
        }
        self.init(server: server, user: user, vaultID: vaultID, name: name, person: person)
    }
}

/// A kit's payload, as its record holds it: a personal vault's or a shared vault's.
public enum RecoveredKit: Sendable {
    case personal(RecoveryPayload)
    case shared(SharedRecoveryPayload)
}
