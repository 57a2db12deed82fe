import CofferCore
import Foundation
import XCTest
@testable import CofferSync

/// The push rules as tables: each pending change and the request it becomes; each answer and what
/// becomes of the change.
final class PushRulesTests: XCTestCase {
    private func change(_ action: PendingChange.Action, base: Int64) -> PendingChange {
        PendingChange(collection: .items, id: "a", source: .local, action: action, lastModified: base, record: "{}")
    }

    func testWhatEachChangeSends() {
        let record = Data("{}".utf8)
        let rows: [(name: String, change: PendingChange, send: PushRules.Send)] = [
            ("a removal of what the server never had sends nothing", change(.remove, base: 0), .nothing),
            ("a removal names the version it removes", change(.remove, base: 7),
             .request(.delete(collection: .items, id: "a", lastModified: 7))),
            ("an addition creates", change(.add, base: 0), .request(.create(collection: .items, id: "a", record: record))),
            ("an update based on nothing the server has creates again", change(.update, base: 0),
             .request(.create(collection: .items, id: "a", record: record))),
            ("an update names the version it replaces", change(.update, base: 7),
             .request(.update(collection: .items, id: "a", record: record, lastModified: 7))),
        ]
        for row in rows {
            XCTAssertEqual(PushRules.send(row.change, in: .items), row.send, row.name)
        }
    }

    func testWhatEachAnswerMeans() {
        let current = Data(#"{"id":"a"}"#.utf8)
        let rows: [(name: String, result: KintoWriteResult, action: PendingChange.Action, answer: PushRules.Answer)] = [
            ("a write accepted keeps the server's time", .accepted(record: current, lastModified: 90), .update,
             .acknowledged(lastModified: 90)),
            ("a removal accepted has no time", .accepted(record: current, lastModified: 90), .remove, .acknowledged(lastModified: nil)),
            ("a removal of what is gone (404) holds", .failed(status: 404, message: "not found"), .remove,
             .acknowledged(lastModified: nil)),
            ("a removal over a tombstone (412 without a record) holds", .preconditionFailed(existing: nil), .remove,
             .acknowledged(lastModified: nil)),
            ("a removal over a newer version waits for the fetch", .preconditionFailed(existing: current), .remove,
             .rejected(reason: nil)),
            ("an update over a newer version waits for the fetch", .preconditionFailed(existing: current), .update,
             .rejected(reason: nil)),
            ("a creation over an existing id waits for the fetch", .preconditionFailed(existing: nil), .add, .rejected(reason: nil)),
            ("an update of what is gone (404) is refused with why", .failed(status: 404, message: "gone"), .update,
             .rejected(reason: "404 gone")),
            ("a 409 or 5xx inside the batch is unknown", .unknown, .add, .unknown),
        ]
        for row in rows {
            XCTAssertEqual(PushRules.answer(row.result, to: row.action), row.answer, row.name)
        }
    }

    /// A personal vault's items wait while the server's keystore under another passphrase waits
    /// (new keys at a device's removal may be in it, architecture §9); nothing else holds them.
    func testItemsWaitForAKeystoreUnderAnotherPassphrase() {
        func keystore(_ verifier: String, deleted: Bool = false) -> KeystoreRecord {
            var record = KeystoreRecord(kdf: KDFParameters(memory: 64 << 20, iterations: 3, salt: "c2FsdA=="), verifier: verifier,
                                        wrappedKey: "w", encrypted: "e", lastModified: 1)
            record.isDeleted = deleted
            return record
        }
        let rows: [(name: String, personal: Bool, waiting: KeystoreRecord?, current: KeystoreRecord?, holds: Bool)] = [
            ("nothing waits", true, nil, keystore("v1"), false),
            ("keys added elsewhere, same passphrase", true, keystore("v1"), keystore("v1"), false),
            ("another passphrase waits", true, keystore("v2"), keystore("v1"), true),
            ("a shared vault (its epochs judge)", false, keystore("v2"), keystore("v1"), false),
            ("a deletion waits (refused at reconcile)", true, keystore("v2", deleted: true), keystore("v1"), false),
            ("no keystore of ours yet", true, keystore("v2"), nil, false),
        ]
        for row in rows {
            XCTAssertEqual(PushRules.holdsItems(personal: row.personal, waiting: row.waiting, current: row.current), row.holds, row.name)
        }
    }
}
