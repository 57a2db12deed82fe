import CofferCore
import CofferSync
import Foundation

extension FuzzChecks {
    /// What an invitation reads from a person or from the rendezvous (`FuzzInvitations`). The
    /// first byte picks the check; the rest is its input:
    /// - 0: typed text as an invitation code: one that parses is eleven symbols of the alphabet
    ///   and parses again, equal, from its shown form and in lower case;
    /// - 1: a `meta.pending_invitation` value: one that parses is stored as text that parses equal;
    /// - 2, 3, 4, 6: JSON as the `invite`, `claim`, `answer` and `key`/`reveal` objects: each
    ///   decodes or is refused with `tampered` (`declined` for an answer); what decodes is written
    ///   back as an object that decodes equal; a claim's name is at most 200 bytes and its
    ///   commitment 32; a key agrees with the fixed handshake only through the commitment made to
    ///   it, or is `tampered`; an answer's grant does not open (no one sealed it) and says `tampered`;
    /// - 5: text as a sealed box of a rendezvous record: it never opens under the fixed code;
    /// - 7: JSON as a `share` invitation's card and as its grant (`ShareInvitation`), both on the
    ///   same bytes: each is refused with `tampered` or reads back equal from what it writes.
    ///
    /// The seeds begin with an ASCII digit: `invitationChecks` divides 48, so '0' picks check 0.
    public static func invitations(_ data: Data) throws {
        guard let selector = data.first else { return }
        let rest = Data(data.dropFirst())
        switch selector % invitationChecks {
        case 0: try invitationCode(String(decoding: rest, as: UTF8.self))
        case 1: try invitationLeftover(String(decoding: rest, as: UTF8.self))
        case 2: try rendezvousObject(rest) { try InvitationRecords.Offer($0) } encode: { $0.object } check: { _ in }
        case 3: try rendezvousObject(rest) { try InvitationRecords.Claim($0) } encode: { $0.object } check: { try checkClaim($0) }
        case 4: try rendezvousObject(rest) { try InvitationRecords.Answer($0) } encode: { $0.object } check: { try openGrant($0) }
        case 6: try rendezvousObject(rest) { try InvitationRecords.PublicKey($0) } encode: { $0.object } check: { try agree($0.key) }
        case 7:
            try shareCard(rest)
            try shareGrant(rest)
        default: try rendezvousBox(String(decoding: rest, as: UTF8.self))
        }
    }

    /// How many checks `invitations` picks from. It must divide 48 (the seeds' '0'): at 7, each
    /// seed ran the check of the digit before it ('0' % 7 is 6).
    public static let invitationChecks: UInt8 = 8

    /// The fixed code, keys and handshakes of the checks (a finding must replay the same way).
    enum FuzzInvitation {
        static let code = try? InvitationCode(parsing: "K7Q4-M2XP-9R4")
        static let keys = code.flatMap { try? RendezvousKeys(code: $0) }
        static let inviter = try? PairingHandshake(rawPrivateKey: Data(repeating: 0x33, count: 32))
        static let claimant = try? PairingHandshake(rawPrivateKey: Data(repeating: 0x44, count: 32))
    }

    private static func invitationCode(_ text: String) throws {
        let code: InvitationCode
        do {
            code = try InvitationCode(parsing: text)
        } catch {
            return  // typed errors only: `Problem`, which the command turns into a sentence
        }
        let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        guard code.symbols.count == 11, code.symbols.allSatisfy(alphabet.contains) else {
            throw FuzzViolation("the code \(code.symbols) parsed from \(text.debugDescription) is not 11 symbols")
        }
        guard (try? InvitationCode(parsing: code.description)) == code,
              (try? InvitationCode(parsing: code.description.lowercased())) == code else {
            throw FuzzViolation("the code \(code) does not parse from its shown form")
        }
    }

    private static func invitationLeftover(_ text: String) throws {
        guard let leftover = InvitationLeftover(stored: text) else { return }
        guard let again = InvitationLeftover(stored: leftover.stored), again == leftover,
              again.stored == leftover.stored else {
            throw FuzzViolation("a pending invitation changed through its stored text: \(leftover.stored.debugDescription)")
        }
    }

    /// One rendezvous record's object: decode, write back, decode equal, then `check` it.
    private static func rendezvousObject<Record: Equatable>(
        _ data: Data, decode: ([String: Any]) throws -> Record, encode: (Record) -> [String: Any],
        check: (Record) throws -> Void
    ) throws {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return }
        let record: Record
        do {
            record = try decode(object)
        } catch InvitationError.tampered, InvitationError.declined {
            return
        } catch {
            throw FuzzViolation("decoding a rendezvous record threw \(error)")
        }
        // Through bytes, as the other side reads what this side wrote.
        let written: Data = try mustSucceed { try JSONSerialization.data(withJSONObject: encode(record), options: [.sortedKeys]) }
            else: { "a decoded rendezvous record does not serialize: \($0)" }
        guard let reread = (try? JSONSerialization.jsonObject(with: written)) as? [String: Any],
              (try? decode(reread)) == record else {
            throw FuzzViolation("a rendezvous record changed when written back: \(String(decoding: written, as: UTF8.self))")
        }
        try check(record)
    }

    /// A claim that decoded is one Coffer could have written: a short name, a 32-byte commitment.
    private static func checkClaim(_ claim: InvitationRecords.Claim) throws {
        guard claim.name.utf8.count <= InvitationRecords.nameLimit, claim.commitment.count == 32 else {
            throw FuzzViolation("a claim of \(claim.name.utf8.count) name bytes, \(claim.commitment.count) commitment bytes decoded")
        }
    }

    /// The other side's pairing key: an agreement when the claim committed to it, else `tampered`
    /// (a key that is not one, or a reveal that does not match the commitment).
    private static func agree(_ key: Data) throws {
        guard let inviter = FuzzInvitation.inviter else { throw FuzzViolation("the fixed handshake could not be made") }
        var transcript = PairingTranscript(kind: "device", expires: 1_767_226_200_000, name: "laptop",
                                           commitment: PairingTranscript.commitment(to: key),
                                           inviterKey: inviter.publicKey, claimantKey: key)
        do {
            let agreement = try inviter.agree(transcript)
            guard agreement.confirmation.count == 7 else {
                throw FuzzViolation("a confirmation number of \(agreement.confirmation.count) characters")
            }
        } catch let error as CoreError {
            guard case .tampered = error else { throw FuzzViolation("agree threw \(error), not tampered") }
        }
        transcript.commitment = PairingTranscript.commitment(to: key + Data([0]))
        do {
            _ = try inviter.agree(transcript)
            throw FuzzViolation("a key agreed though the claim committed to another")
        } catch let error as CoreError {
            guard case .tampered = error else { throw FuzzViolation("agree threw \(error), not tampered") }
        }
    }

    /// A grant nobody sealed under the fixed agreement never opens.
    private static func openGrant(_ answer: InvitationRecords.Answer) throws {
        guard let grant = answer.grant, let inviter = FuzzInvitation.inviter, let claimant = FuzzInvitation.claimant else { return }
        let transcript = PairingTranscript(kind: "device", expires: 1_767_226_200_000, name: "laptop",
                                           commitment: PairingTranscript.commitment(to: claimant.publicKey),
                                           inviterKey: inviter.publicKey, claimantKey: claimant.publicKey)
        guard let agreement = try? claimant.agree(transcript) else { return }
        do {
            _ = try agreement.open(grant, label: "grant")
            throw FuzzViolation("a grant nobody sealed opened: \(grant)")
        } catch let error as CoreError {
            guard case .tampered = error else { throw FuzzViolation("opening a grant threw \(error), not tampered") }
        }
    }

    /// A joining person's card: refused with `tampered`, or a person within `Person`'s bounds
    /// whose card, as Coffer writes it, reads back as the same person.
    private static func shareCard(_ data: Data) throws {
        let person: Person
        do {
            person = try ShareInvitation.person(fromCard: data)
        } catch InvitationError.tampered {
            return
        } catch {
            throw FuzzViolation("reading a share card threw \(error), not tampered")
        }
        guard person.name.utf8.count <= Person.nameLimit, !person.name.utf8.contains(0), person.account.utf8.count <= Person.accountLimit,
              person.signingKey.count == Person.keyLength, person.sealingKey.count == Person.keyLength else {
            throw FuzzViolation("a card of \(person.name.utf8.count) name bytes, \(person.account.utf8.count) account bytes decoded")
        }
        let card = ShareInvitation.card(for: person)
        guard (try? ShareInvitation.person(fromCard: card)) == person else {
            throw FuzzViolation("a share card changed when written back: \(String(decoding: card, as: UTF8.self))")
        }
    }

    /// An inviter's grant: refused with `tampered`, or one whose name is a file name beside the
    /// personal vault and whose JSON reads back as the same grant.
    private static func shareGrant(_ data: Data) throws {
        let grant: ShareInvitation.Grant
        do {
            grant = try ShareInvitation.Grant(json: data)
        } catch InvitationError.tampered {
            return
        } catch {
            throw FuzzViolation("reading a share grant threw \(error), not tampered")
        }
        guard SharedVaultName.isValid(grant.name),
              SharedVaultName.path(of: grant.name, besidePersonalVault: "/home/a/vault.db") == "/home/a/\(grant.name).db",
              (0..<RosterChain.entryLimit).contains(grant.head.position), grant.head.hash.count == RosterEntry.hashLength else {
            throw FuzzViolation("a grant named \(grant.name.debugDescription) at position \(grant.head.position) decoded")
        }
        guard (try? ShareInvitation.Grant(json: grant.json)) == grant else {
            throw FuzzViolation("a share grant changed when written back: \(String(decoding: grant.json, as: UTF8.self))")
        }
    }

    private static func rendezvousBox(_ box: String) throws {
        guard let keys = FuzzInvitation.keys else { throw FuzzViolation("the fixed rendezvous keys could not be made") }
        // `tampered` is the only error `open` declares.
        if (try? InvitationRecords.open(["box": box], id: "invite", keys: keys)) != nil {
            throw FuzzViolation("a box nobody sealed opened: \(box)")
        }
    }
}
