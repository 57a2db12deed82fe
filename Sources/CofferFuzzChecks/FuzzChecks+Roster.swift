import CofferCore
import Foundation

extension FuzzChecks {
    /// A shared vault's roster (architecture §17) as a server may serve it (`FuzzRoster`). The
    /// first byte picks the check; the rest is its input:
    /// - 0: bytes as an encoded entry: one that decodes re-encodes to the same bytes, which decode
    ///   equal with the same hash;
    /// - 1: JSON as a `roster/SEQ` record: one that decodes writes JSON that decodes equal;
    /// - 2: a script (`RosterScript`) building a chain of fuzz-chosen entries signed by fixed
    ///   people: verifying it never crashes and gives the same answer twice; an accepted chain's
    ///   head is its last entry, its members are within the limit and each prefix is accepted; a
    ///   refused chain names a position inside it, every entry before which is accepted; what the
    ///   signing side makes along the way is accepted.
    public static func roster(_ data: Data) throws {
        guard let selector = data.first else { return }
        let rest = Data(data.dropFirst())
        switch selector % 3 {
        case 0: try rosterEntry(rest)
        case 1: try rosterRecord(rest)
        default: try rosterChain(rest)
        }
    }

    /// The chain a script builds, for the seed corpus's test.
    public static func rosterChain(script: Data) throws -> (entries: [RosterEntry], vault: SharedVaultID) {
        guard let vault = RosterScript.vault else { throw FuzzViolation("the fixed vault id is not valid") }
        return (try RosterScript(script).entries, vault)
    }

    private static func rosterEntry(_ bytes: Data) throws {
        guard let entry = try? RosterEntry(encoded: bytes) else { return }
        let encoded = entry.encoded
        guard encoded == bytes else {
            throw FuzzViolation("an entry decoded from \(bytes.count) bytes re-encodes to \(encoded.count) other bytes")
        }
        guard let again = try? RosterEntry(encoded: encoded), again == entry, again.hash == entry.hash else {
            throw FuzzViolation("an entry's encoding does not decode to the same entry")
        }
    }

    private static func rosterRecord(_ json: Data) throws {
        guard let record = try? RosterRecord(json: json) else { return }
        guard (try? RosterRecord(json: record.json)) == record else {
            throw FuzzViolation("a roster record changed through its JSON: \(String(decoding: record.json, as: UTF8.self))")
        }
        try rosterEntry(record.entry.encoded)
    }

    private static func rosterChain(_ script: Data) throws {
        let (entries, vault) = try rosterChain(script: script)
        let result = RosterChain.verify(entries: entries, vaultID: vault)
        guard RosterChain.verify(entries: entries, vaultID: vault) == result else {
            throw FuzzViolation("verifying the same chain of \(entries.count) entries twice gave two answers")
        }
        for entry in entries where (try? RosterEntry(encoded: entry.encoded)) != entry {
            throw FuzzViolation("a chain's entry does not decode from its encoding: \(entry.change)")
        }
        switch result {
        case .success(let state):
            guard let last = entries.last, state.head == RosterHead(position: entries.count - 1, hash: last.hash) else {
                throw FuzzViolation("an accepted chain of \(entries.count) entries has its head at \(state.head.position)")
            }
            guard state.members.count <= RosterChain.memberLimit, state.epoch >= 1,
                  state.members.allSatisfy({ $0.key == $0.value.person.id }) else {
                throw FuzzViolation("an accepted chain's state is out of its bounds: epoch \(state.epoch)")
            }
            guard state.head.continuity(of: entries) == .continues else {
                throw FuzzViolation("an accepted chain does not continue its own head")
            }
            if entries.count > 1, case .failure(let problem) = RosterChain.verify(entries: Array(entries.dropLast()), vaultID: vault) {
                throw FuzzViolation("an accepted chain's prefix was refused: \(problem)")
            }
        case .failure(let problem):
            guard problem.position >= 0, problem.position < max(entries.count, 1) else {
                throw FuzzViolation("a chain of \(entries.count) entries was refused at \(problem.position)")
            }
            if problem.position > 0,
               case .failure(let earlier) = RosterChain.verify(entries: Array(entries.prefix(problem.position)), vaultID: vault) {
                throw FuzzViolation("a chain refused at \(problem.position) has an earlier problem: \(earlier)")
            }
            guard !problem.description.isEmpty, !problem.description.contains("\n") else {
                throw FuzzViolation("a roster problem is not one sentence: \(problem.description.debugDescription)")
            }
        }
    }
}
