import CofferCore
import Foundation

/// What the two sides of a `share` invitation hand each other (architecture §17), as JSON sealed
/// to the exchange's agreement: the joining person's card, and the inviter's grant.
///
/// Both come from someone who knows the code and passed the compared number; their fields are
/// still checked as a stranger's (sizes, forms), and the grant's roster head is checked against
/// the roster the server serves.
public enum ShareInvitation {
    /// The joining person: name, Kinto account and public keys (`Person`).
    public static func card(for person: Person) -> Data {
        let object: [String: String] = ["name": person.name, "account": person.account,
                                        "signing_key": person.signingKey.base64EncodedString(),
                                        "sealing_key": person.sealingKey.base64EncodedString()]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// The person a card describes; `InvitationError.tampered` for anything else.
    public static func person(fromCard card: Data) throws -> Person {
        guard card.count <= 2048, let object = try? JSONSerialization.jsonObject(with: card) as? [String: String],
              let name = object["name"], let account = object["account"],
              let signing = object["signing_key"].flatMap({ Data(base64Encoded: $0) }),
              let sealing = object["sealing_key"].flatMap({ Data(base64Encoded: $0) }),
              let person = try? Person(name: name, signingKey: signing, sealingKey: sealing, account: account)
        else { throw InvitationError.tampered }
        return person
    }

    /// The inviter's answer: which vault, by which name, and the roster entry that added the person.
    public struct Grant: Sendable, Equatable {
        public var vaultID: SharedVaultID
        public var name: String
        public var head: RosterHead

        public init(vaultID: SharedVaultID, name: String, head: RosterHead) {
            self.vaultID = vaultID
            self.name = name
            self.head = head
        }

        public var json: Data {
            let object: [String: Any] = ["vault": vaultID.bucket, "name": name, "position": head.position,
                                         "hash": head.hash.base64EncodedString()]
            return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        }

        public init(json: Data) throws {
            guard json.count <= 2048, let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
                  let bucket = object["vault"] as? String, let vaultID = SharedVaultID(bucket: bucket),
                  let name = object["name"] as? String, SharedVaultName.isValid(name),
                  let position = object["position"] as? Int, (0..<RosterChain.entryLimit).contains(position),
                  let hash = (object["hash"] as? String).flatMap({ Data(base64Encoded: $0) }), hash.count == RosterEntry.hashLength
            else { throw InvitationError.tampered }
            self.init(vaultID: vaultID, name: name, head: RosterHead(position: position, hash: hash))
        }
    }
}
