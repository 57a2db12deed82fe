import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// `SharedRoster.merge`: the roster a shared vault's sync builds from its stored chain and the
/// records changed since its marker (architecture §17). A server may restamp a record, append,
/// or lie; only the first two change nothing but what they say.
final class RosterMergeTests: XCTestCase {
    private let vaultID = SharedVaultID.random()

    /// A chain of `count` entries: Ann creates, then adds one person after another.
    private func chain(_ count: Int) throws -> [RosterEntry] {
        let ann = PersonKeys()
        let key = SecureBuffer.random(count: EpochCommitment.keyLength)
        var entries = [try RosterChain.creation(of: vaultID, name: "Ann", account: "ann", by: ann, epochKey: key)]
        while entries.count < count {
            guard case .success(let state) = RosterChain.verify(entries: entries, vaultID: vaultID) else { throw RosterProblem(position: 0, reason: .noEntries) }
            let person = try PersonKeys().person(name: "P\(entries.count)", account: "p\(entries.count)")
            entries.append(try RosterChain.entry(appending: .add(person), to: state, by: ann, epochKey: key))
        }
        return entries
    }

    private func record(_ entry: RosterEntry, at position: Int? = nil) -> Data {
        let id = RosterRecord.id(position: position ?? Int(entry.sequence))
        return Data(#"{"id":"\#(id)","last_modified":1,"entry":"\#(entry.encoded.base64EncodedString())"}"#.utf8)
    }

    private func tombstone(_ position: Int) -> Data {
        Data(#"{"id":"\#(RosterRecord.id(position: position))","last_modified":2,"deleted":true}"#.utf8)
    }

    private func refusal(_ body: () throws -> Void) -> RosterRefusal.Reason? {
        do {
            try body()
            return nil
        } catch let refusal as RosterRefusal {
            return refusal.reason
        } catch {
            XCTFail("not a refusal: \(error)")
            return nil
        }
    }

    func testRestampedEntriesChangeNothingAndNewOnesAreAppended() throws {
        let entries = try chain(4)
        let stored = Array(entries.prefix(2))
        XCTAssertEqual(try SharedRoster.merge([], into: stored, vault: "home"), stored)
        // A permission rewrite restamps every record unchanged; two new entries come with them.
        let merged = try SharedRoster.merge(entries.map { record($0) }, into: stored, vault: "home")
        XCTAssertEqual(merged, entries)
        XCTAssertEqual(try SharedRoster.merge([record(entries[3]), record(entries[2])], into: stored, vault: "home"), entries,
                       "the order of the listing does not matter")
    }

    func testAChangedVerifiedEntryIsAForkAndADeletedOneARollback() throws {
        let entries = try chain(3)
        let other = try chain(3)  // another chain of the same vault: its entry 1 is not ours
        XCTAssertEqual(refusal { _ = try SharedRoster.merge([record(other[1])], into: entries, vault: "home") },
                       .discontinued(.fork(position: 1)))
        XCTAssertEqual(refusal { _ = try SharedRoster.merge([tombstone(1)], into: entries, vault: "home") },
                       .discontinued(.rollback(verified: 3, served: 1)))
        // An entry this device never took, removed again (a refused forgery): nothing.
        XCTAssertEqual(try SharedRoster.merge([tombstone(3)], into: entries, vault: "home"), entries)
    }

    func testAGapAMisplacedEntryOrAMalformedRecordIsRefused() throws {
        let entries = try chain(4)
        let stored = Array(entries.prefix(2))
        guard case .malformed? = refusal({ _ = try SharedRoster.merge([record(entries[3])], into: stored, vault: "home") }) else {
            return XCTFail("a gap was taken")
        }
        guard case .malformed? = refusal({ _ = try SharedRoster.merge([record(entries[3], at: 5)], into: stored, vault: "home") }) else {
            return XCTFail("an entry two places from its sequence was taken")
        }
        for hostile in [#"{"id":"x","entry":"AA=="}"#, #"{"id":"0000000002","entry":"not base64"}"#, "[]", "null"] {
            guard case .malformed? = refusal({ _ = try SharedRoster.merge([Data(hostile.utf8)], into: stored, vault: "home") }) else {
                return XCTFail("taken: \(hostile)")
            }
        }
    }
}
