import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferAgent

/// The agent's frames: every request and answer survives the wire, the wire keeps the shape old
/// builds and the raw CLI tests read, and anything else is refused.
final class AgentProtocolTests: XCTestCase {
    static let item = Item(id: "0123456789abcdef0123456789abcdef", title: "Bank", origins: ["https://bank.example"],
                           tags: ["money"], entry: Entry(username: "ann", password: "b4nk", notes: "line one\nline two"),
                           created: Timestamp(milliseconds: 1_767_225_600_000))

    static var edited: Item {
        var item = item
        item.entry.username = "ann@example.org"
        return item
    }

    static let requests: [AgentRequest] = [
        .status, .renew(idle: nil), .renew(idle: 60), .lock,
        .items(.everything), .items(ItemQuery(text: "bank ann", tag: "money", origin: "bank.example", id: "0123")),
        .item(name: "bank"), .add(item), .update(edited, base: item), .remove(id: item.id), .addAll([item, edited]),
        .addAll([]), .now, .sync, .devices, .queueMessage(.lock, to: ["a", "b"]), .removeDevice(id: "a", rotate: true),
        .removeDevice(id: "b", rotate: false),
        .attach(itemID: item.id, name: "scan.pdf", data: Data([0, 1, 2, 255])), .detach(itemID: item.id, name: "scan.pdf"),
        .attachment(itemID: item.id, name: "scan.pdf"),
    ]

    static var responses: [AgentResponse] {
        var outcome = SyncOutcome(SyncReport(error: .syncAuth, message: "refused"))
        outcome.downloaded = 3
        outcome.clockWarning = "the server's clock is 5 minutes ahead"
        return [
            .failure(AgentFailure(.ambiguous, "\u{201C}ba\u{201D} matches 2 items:\n  Bank\n  Bakery")),
            .failure(AgentFailure(.syncAuth, "refused")),
            .status(AgentStatus(pid: 42, vault: "/home/ann/vault.db", idleSeconds: 900, locksInSeconds: 899.5)),
            .status(AgentStatus(pid: 42, vault: "/v", idleSeconds: 0, locksInSeconds: nil)),
            .done,
            .items([]),
            .items([
                ListedItem(id: item.id, state: .ready(item), hasLocalChange: true, hasConflict: false, needsReview: true),
                ListedItem(id: "waiting", state: .waitingForKey, hasLocalChange: false, hasConflict: true, needsReview: false),
                ListedItem(id: "broken", state: .corrupt("the record failed authentication"), hasLocalChange: false,
                           hasConflict: false, needsReview: false),
            ]),
            .item(item),
            .saved(SavedEdit(item: edited, mergedWithNewer: true, conflicts: ["password"])),
            .saved(SavedEdit(item: edited, mergedWithNewer: false, conflicts: [])),
            .now(Date(timeIntervalSince1970: 1_767_225_600.5)),
            .sync(outcome),
            .sync(SyncOutcome(SyncReport())),
            .devices([]),
            .devices([KnownDevice(id: "d1", name: "phone", publicKey: "key", capabilities: ["messages"],
                                  lastSeen: Timestamp(milliseconds: 5), isCurrent: false),
                      KnownDevice(id: "d2", name: nil, publicKey: "other", capabilities: [], lastSeen: Timestamp(milliseconds: 6),
                                  isCurrent: true)]),
            .file(Attachment(name: "scan.pdf", bytes: Data([0, 1, 2, 255]), added: Timestamp(milliseconds: 7)), Data([0, 1, 2, 255])),
        ]
    }

    func testEveryRequestRoundTrips() throws {
        XCTAssertEqual(Set(Self.requests.map(\.operation)), Set(AgentRequest.Operation.allCases), "a request case is missing here")
        for request in Self.requests {
            let decoded = try JSONDecoder().decode(AgentRequest.self, from: try JSONEncoder().encode(request))
            XCTAssertEqual(decoded, request)
        }
    }

    func testEveryAnswerRoundTrips() throws {
        XCTAssertEqual(Set(Self.responses.map(\.summary)).count, 10, "an answer case is missing here")
        for response in Self.responses {
            let decoded = try JSONDecoder().decode(AgentResponse.self, from: try JSONEncoder().encode(response))
            XCTAssertEqual(decoded, response)
        }
    }

    /// The shape on the wire is the one older builds wrote: an operation and its values beside it;
    /// an answer's key naming its kind, a failure's kind as its exit code's number.
    func testTheWireKeepsItsShape() throws {
        XCTAssertEqual(try text(AgentRequest.item(name: "bank")), #"{"name":"bank","operation":"item"}"#)
        XCTAssertEqual(try text(AgentRequest.renew(idle: 60)), #"{"idle":60,"operation":"renew"}"#)
        XCTAssertEqual(try text(AgentRequest.renew(idle: nil)), #"{"operation":"renew"}"#)
        XCTAssertEqual(try text(AgentRequest.removeDevice(id: "a", rotate: true)), #"{"id":"a","operation":"removeDevice","rotate":true}"#)
        XCTAssertEqual(try text(AgentRequest.queueMessage(.signout, to: ["a"])), #"{"ids":["a"],"operation":"queueMessage","topic":"signout"}"#)
        XCTAssertEqual(try text(AgentResponse.failure(.invalidIdle)),
                       #"{"failure":{"exitCode":2,"message":"The idle time must be a number of seconds, 0 or more; the limit is unchanged."}}"#)
        XCTAssertEqual(try text(AgentResponse.done), "{}")
        XCTAssertEqual(try text(AgentResponse.now(Date(timeIntervalSince1970: 2))), #"{"now":2000}"#)
        let item = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(AgentResponse.item(Self.item))) as? [String: Any]
        let encoded = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(item?["item"] as? String)))
        XCTAssertEqual(try ItemCodec.decode(encoded), Self.item, "an item travels as its ItemCodec JSON")
        // A listing of everything from a build that sent no query.
        XCTAssertEqual(try request(#"{"operation":"items"}"#), .items(.everything))
    }

    func testMalformedRequestsAreRefused() {
        let malformed = [
            #"{}"#, #"{"operation":"unlockEverything"}"#, #"{"operation":"item"}"#, #"{"operation":"item","name":7}"#,
            #"{"operation":"add"}"#, #"{"operation":"add","item":"not base64"}"#,
            #"{"operation":"add","item":"\#(Data("{\"title\":".utf8).base64EncodedString())"}"#,
            #"{"operation":"update","item":"\#(base64(Self.item))"}"#, #"{"operation":"remove"}"#,
            #"{"operation":"addAll"}"#, #"{"operation":"queueMessage","ids":["a"]}"#,
            #"{"operation":"queueMessage","ids":["a"],"topic":"explode"}"#, #"{"operation":"removeDevice","id":"a"}"#,
            #"{"operation":"renew","idle":"soon"}"#, #"["status"]"#, "not json",
        ]
        for text in malformed {
            XCTAssertThrowsError(try request(text), text)
        }
    }

    func testMalformedAnswersAreRefused() {
        let status = #""status":{"pid":1,"vault":"/v","idleSeconds":0}"#
        let malformed = [
            "{\(status),\"now\":5}", #"{"failure":{"exitCode":7,"message":"no such kind"}}"#,
            #"{"failure":{"exitCode":0,"message":"success is no failure"}}"#, #"{"failure":{"message":"no kind"}}"#,
            #"{"mergedWithNewer":true,"conflicts":[]}"#, #"{"item":"\#(base64(Self.item))","mergedWithNewer":true}"#,
            #"{"listed":{}}"#, #"{"listed":[{"id":"x"}]}"#, #"{"now":"today"}"#, #"{"item":"AAAA"}"#, "[]",
        ]
        for text in malformed {
            XCTAssertThrowsError(try JSONDecoder().decode(AgentResponse.self, from: Data(text.utf8)), text)
        }
        // Keys it does not know are passed over: a newer agent may say more.
        XCTAssertEqual(try JSONDecoder().decode(AgentResponse.self, from: Data(#"{"later":1}"#.utf8)), .done)
    }

    /// The kinds a vault's errors are reported with (the command line maps them to its exit codes).
    func testFailureKindsOfAVaultsErrors() {
        let rows: [(Error, AgentFailure.Kind)] = [
            (CoreError.wrongPassphrase, .wrongPassphrase),
            (CoreError.noSuchItem(id: "x"), .noSuchItem),
            (CoreError.noItemNamed("x"), .noSuchItem),
            (CoreError.removedMeanwhile(id: "x", title: "X"), .noSuchItem),
            (CoreError.invalidItem(id: "x", problems: []), .invalidItem),
            (CoreError.duplicateItem(id: "x"), .invalidItem),
            (CoreError.invalidImport(reason: "x"), .invalidItem),
            (CoreError.ambiguousName("x", candidates: []), .ambiguous),
            (CoreError.locked, .other),
            (CoreError.busy, .other),
            (AgentFailure.noAccount, .usage),
            (AgentError.absent, .other),
        ]
        for (error, kind) in rows {
            XCTAssertEqual(AgentFailure.Kind(classifying: error), kind, "\(error)")
            XCTAssertEqual(AgentFailure(reporting: error), AgentFailure(kind, "\(error)"))
        }
        XCTAssertEqual(AgentFailure.Kind(.offline), .offline)
        XCTAssertEqual(AgentFailure.Kind(.syncLocked), .syncLocked)
    }

    private func text<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func request(_ text: String) throws -> AgentRequest {
        try JSONDecoder().decode(AgentRequest.self, from: Data(text.utf8))
    }

    private func base64(_ item: Item) -> String {
        (try? ItemCodec.encode(item).base64EncodedString()) ?? ""
    }
}
