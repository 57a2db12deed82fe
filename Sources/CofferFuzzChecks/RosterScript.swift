import CofferCore
import Foundation

/// A roster chain built from a fuzz input read as a script: each step appends a genuine entry,
/// one shaped like a raced removal, one with a field made wrong, a copy, a bit flip, or an entry
/// the signing side makes, by one of five fixed people (`FuzzRoster`).
///
/// The people, the vault and the one epoch key of every epoch are fixed, so a finding replays;
/// entries are signed for real, so a script reaches every rule of the verifier, not only the
/// signature check.
struct RosterScript {
    /// Ann, Ben, Cat, Dan and Eve, with fixed keys.
    static let people: [PersonKeys] = (0..<5).compactMap { index in
        try? PersonKeys(signingKey: SecureBuffer(copying: Data(repeating: 0x51 + UInt8(index), count: 32)),
                        sealingKey: SecureBuffer(copying: Data(repeating: 0x61 + UInt8(index), count: 32)))
    }
    static let names = ["Ann", "Ben", "Cat", "Dan", "Eve"]
    static let vault = SharedVaultID(bucket: "share-" + String(repeating: "a", count: 26))
    static let otherVault = SharedVaultID(bucket: "share-" + String(repeating: "b", count: 25) + "a")
    static let epochKey = SecureBuffer(copying: Data(repeating: 0x71, count: 32))
    static let otherKey = SecureBuffer(copying: Data(repeating: 0x72, count: 32))
    static let kitKey = Data(repeating: 0x73, count: 32)
    static let stepLimit = 32
    static let entryLimit = 24

    private(set) var entries: [RosterEntry] = []
    private var bytes: [UInt8]
    private var offset = 0

    /// Runs the script in `bytes`; throws `FuzzViolation` when the signing side made an entry
    /// the verifier refuses.
    init(_ bytes: Data) throws {
        self.bytes = Array(bytes)
        guard Self.people.count == 5, let vault = Self.vault else { throw FuzzViolation("the fixed people could not be made") }
        for _ in 0..<Self.stepLimit {
            guard let operation = next() else { break }
            try step(operation % 8, vault: vault)
            if entries.count > Self.entryLimit { entries.removeLast() }
        }
    }

    private mutating func next() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func argument() -> Int { Int(next() ?? 0) }

    private static func person(_ index: Int) throws -> Person {
        try people[index % 5].person(name: names[index % 5], account: names[index % 5].lowercased())
    }

    /// A change from one byte: its kind, then whose.
    private static func change(_ byte: Int) throws -> RosterChange {
        switch byte % 5 {
        case 0: return .create(try person(byte / 5))
        case 1: return .add(try person(byte / 5))
        case 2: return .remove(personID: people[(byte / 5) % 5].id)
        case 3: return .recovery(sealingKey: kitKey)
        default: return .rotate
        }
    }

    private mutating func step(_ operation: UInt8, vault: SharedVaultID) throws {
        switch operation {
        case 0: entries.append(try signed(by: argument(), change: argument(), after: entries.count - 1, vault: vault))
        case 1:
            // Shaped like a raced removal: the sequence and previous entry of the last one.
            guard !entries.isEmpty else { return }
            entries.append(try signed(by: argument(), change: argument(), after: entries.count - 2, vault: vault))
        case 2: entries.append(try wrong(signed(by: argument(), change: argument(), after: entries.count - 1, vault: vault),
                                          field: argument()))
        case 3:
            let index = argument()
            if !entries.isEmpty { entries.append(entries[index % entries.count]) }
        case 4: if !entries.isEmpty { entries.removeLast() }
        case 5: flipBit(at: argument() << 8 | argument())
        case 6: try appendMadeBySigningSide(by: argument(), change: argument(), vault: vault)
        default: try appendRacedRemoval(by: argument())
        }
    }

    /// An entry by person `author` making change `change` after the entry at `index` (-1: none),
    /// with the sequence, previous hash, epoch and commitment a genuine one would have there.
    private func signed(by author: Int, change: Int, after index: Int, vault: SharedVaultID) throws -> RosterEntry {
        let change = try Self.change(change)
        let before = index >= 0 && index < entries.count ? entries[index] : nil
        let epoch = (before?.epoch ?? 0) &+ (change.beginsEpoch ? 1 : 0)
        let commitment = change.beginsEpoch || before == nil ? EpochCommitment.commitment(epoch: epoch, key: Self.epochKey)
                                                             : before?.epochCommitment ?? Data(count: 32)
        return try RosterEntry(vaultID: vault, sequence: UInt64(max(0, index + 1)), previous: before?.hash ?? Data(count: 32),
                               change: change, epoch: epoch, epochCommitment: commitment, signedBy: Self.people[author % 5])
    }

    /// `entry` signed again with one field made wrong.
    private func wrong(_ entry: RosterEntry, field: Int) throws -> RosterEntry {
        var vault = entry.vaultID, sequence = entry.sequence, previous = entry.previous
        var epoch = entry.epoch, commitment = entry.epochCommitment
        switch field % 6 {
        case 0: sequence &+= 1
        case 1: previous = Data(repeating: 0xEE, count: 32)
        case 2: epoch &+= 1
        case 3: epoch &-= 1
        case 4: commitment = EpochCommitment.commitment(epoch: epoch, key: Self.otherKey)
        default: vault = Self.otherVault ?? vault
        }
        let author = Self.people.first { $0.id == entry.author } ?? Self.people[0]
        return try RosterEntry(vaultID: vault, sequence: sequence, previous: previous, change: entry.change, epoch: epoch,
                               epochCommitment: commitment, signedBy: author)
    }

    /// The last entry with one bit of its encoding flipped, if that still decodes.
    private mutating func flipBit(at position: Int) {
        guard let last = entries.last else { return }
        var encoded = last.encoded
        encoded[position % encoded.count] ^= UInt8(1 << (position % 8))
        if let changed = try? RosterEntry(encoded: encoded) { entries[entries.count - 1] = changed }
    }

    /// What the signing side makes after the chain, which the verifier must then accept.
    private mutating func appendMadeBySigningSide(by author: Int, change: Int, vault: SharedVaultID) throws {
        let keys = Self.people[author % 5]
        if entries.isEmpty {
            let name = Self.names[author % 5]
            entries = [try RosterChain.creation(of: vault, name: name, account: name.lowercased(), by: keys, epochKey: Self.epochKey)]
            return try expectAccepted("a creation the signing side made")
        }
        guard case .success(let state) = RosterChain.verify(entries: entries, vaultID: vault) else { return }
        let entry: RosterEntry
        do {
            entry = try RosterChain.entry(appending: try Self.change(change), to: state, by: keys, epochKey: Self.epochKey)
        } catch let problem as RosterProblem {
            guard problem.position == state.head.position + 1 else {
                throw FuzzViolation("the signing side refused entry \(state.head.position + 1) naming \(problem.position)")
            }
            return
        }
        entries.append(entry)
        try expectAccepted("an entry the signing side made (\(entry.change))")
    }

    /// The removed member's raced removal of the last entry's author, when the last entry
    /// removed them; accepted then, whatever came before.
    private mutating func appendRacedRemoval(by loser: Int) throws {
        let keys = Self.people[loser % 5]
        guard let last = entries.last, let vault = Self.vault, entries.count >= 2,
              case .success = RosterChain.verify(entries: entries, vaultID: vault),
              case .success(let lost) = RosterChain.verify(entries: Array(entries.dropLast()), vaultID: vault),
              let raced = try? RosterChain.racedRemoval(of: last.author, against: lost, by: keys, epochKey: Self.otherKey)
        else { return }
        entries.append(raced)
        let isWinnersRemovalOfLoser = last.change == .remove(personID: keys.id) && last.author != keys.id
            && last.sequence == UInt64(entries.count - 2)
        if isWinnersRemovalOfLoser { try expectAccepted("a raced removal of the winner") }
    }

    private func expectAccepted(_ what: String) throws {
        guard let vault = Self.vault else { return }
        if case .failure(let problem) = RosterChain.verify(entries: entries, vaultID: vault) {
            throw FuzzViolation("\(what) was refused: \(problem)")
        }
    }
}
