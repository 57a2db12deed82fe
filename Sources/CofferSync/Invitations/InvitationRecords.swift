import CofferCore
import Foundation

/// The records of a rendezvous as values, read from the JSON objects the other side wrote.
///
/// The records arrive from a server that may have been tampered with (the box only proves that
/// someone holding the code wrote them): decoding is written apart from the network so the fuzz
/// checks (`FuzzInvitations`) can feed it every shape of object. Anything missing, of the wrong
/// type or of the wrong size is `InvitationError.tampered`.
package enum InvitationRecords {
    /// The longest claimant name taken, in UTF-8 bytes: a longer one was not written by Coffer.
    package static let nameLimit = 200

    /// The inviter's `invite` record: what is offered and until when. The inviter's key waits
    /// for the claim (`PublicKey` in `key`).
    package struct Offer: Equatable, Sendable {
        package var kind: String
        /// Milliseconds since 1970.
        package var expires: Int64

        package init(kind: String, expires: Int64) {
            self.kind = kind
            self.expires = expires
        }

        package init(_ object: [String: Any]) throws(InvitationError) {
            guard let kind = object["kind"] as? String, kind.utf8.count <= 16,
                  let expires = InvitationRecords.milliseconds(object["expires"]) else { throw .tampered }
            self.init(kind: kind, expires: expires)
        }

        package var object: [String: Any] { ["kind": kind, "expires": expires] }
    }

    /// The claimant's `claim` record: the name it gives and its commitment to the key it reveals later.
    package struct Claim: Equatable, Sendable {
        package var name: String
        package var commitment: Data

        package init(name: String, commitment: Data) {
            self.name = name
            self.commitment = commitment
        }

        package init(_ object: [String: Any]) throws(InvitationError) {
            guard let name = object["name"] as? String, name.utf8.count <= InvitationRecords.nameLimit,
                  let text = object["commitment"] as? String, let commitment = Data(base64Encoded: text),
                  commitment.count == 32 else { throw .tampered }
            self.init(name: name, commitment: commitment)
        }

        package var object: [String: Any] { ["name": name, "commitment": commitment.base64EncodedString()] }
    }

    /// A pairing key: the inviter's in `key`, the claimant's in `reveal`.
    package struct PublicKey: Equatable, Sendable {
        package var key: Data

        package init(key: Data) { self.key = key }

        package init(_ object: [String: Any]) throws(InvitationError) {
            guard let text = object["key"] as? String, let key = Data(base64Encoded: text), key.count == 32 else {
                throw .tampered
            }
            self.init(key: key)
        }

        package var object: [String: Any] { ["key": key.base64EncodedString()] }
    }

    /// The inviter's `answer` record: a refusal, or the grant sealed to the claimant.
    package struct Answer: Equatable, Sendable {
        /// The sealed payload; nil for a refusal.
        package var grant: String?

        package init(grant: String?) { self.grant = grant }

        /// `.declined` unless `allowed` is true; `.tampered` for an allowed answer without a grant.
        package init(_ object: [String: Any]) throws(InvitationError) {
            guard object["allowed"] as? Bool == true else { throw .declined }
            guard let grant = object["grant"] as? String else { throw .tampered }
            self.init(grant: grant)
        }

        package var object: [String: Any] {
            var object: [String: Any] = ["allowed": grant != nil]
            if let grant { object["grant"] = grant }
            return object
        }
    }

    /// A JSON number that is a whole number of milliseconds in Int64's range, else nil.
    ///
    /// Not `NSNumber.int64Value`: a double outside Int64's range (`1.5e300`, which anyone can write
    /// into a record) comes out of it as Int64.min, a date no one wrote.
    static func milliseconds(_ value: Any?) -> Int64? {
        if let integer = value as? Int64 { return integer }
        if let integer = value as? Int { return Int64(integer) }
        guard let number = value as? NSNumber else { return nil }
        return Int64(exactly: number.doubleValue)
    }

    /// The JSON object a record's box holds, opened with `keys` for the record `id`.
    package static func open(_ record: [String: String], id: String, keys: RendezvousKeys) throws(InvitationError) -> [String: Any] {
        guard let box = record["box"], let plaintext = try? keys.open(box, label: id),
              let object = try? JSONSerialization.jsonObject(with: plaintext) as? [String: Any] else {
            throw .tampered
        }
        return object
    }
}
