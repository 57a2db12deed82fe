import CofferCore
import CofferSync
import Foundation
import XCTest
@testable import CofferAgent

/// The agent's answers after writes: another process's commits (a second `Vault` on the same file,
/// as the screen or a command without the agent) and the agent's own, which update its index in place.
final class AgentFreshnessTests: XCTestCase {
    private var agent: RunningAgent?

    override func tearDown() {
        agent?.tearDown()
        agent = nil
        super.tearDown()
    }

    private static func item(_ title: String, notes: String, tags: [String] = [], origins: [String] = []) -> Item {
        Item(title: title, origins: origins, tags: tags,
             entry: Entry(username: "ann", password: "secret of \(title)", notes: notes), created: .now())
    }

    private func titles(_ client: AgentVault, _ query: ItemQuery) throws -> [String] {
        try client.items(query).compactMap(\.item?.title).sorted()
    }

    func testAnswersFollowOtherProcessesCommits() throws {
        let agent = try RunningAgent()
        self.agent = agent
        let client = try agent.client()
        let other = try blockingAsync { () -> Vault in
            let vault = try Vault.open(at: agent.paths.vault)
            _ = try await vault.unlock(passphrase: SecureBuffer(copying: Array(RunningAgent.passphrase.utf8)))
            return vault
        }
        let bank = try client.add(Self.item("Bank", notes: "money"))
        XCTAssertEqual(try titles(client, ItemQuery(text: "money")), ["Bank"], "the index is built")

        let mail = try blockingAsync {
            try await other.add(Self.item("Mail", notes: "letters", tags: [" Home "], origins: ["https://Inbox.Example.org/login"]))
        }
        XCTAssertEqual(try titles(client, ItemQuery(text: "letters")), ["Mail"])
        // A tag or an origin is matched as without the agent (normalized), the rows read found by their text.
        XCTAssertEqual(try titles(client, ItemQuery(tag: "HOME")), ["Mail"])
        XCTAssertEqual(try titles(client, ItemQuery(origin: "inbox.example.org")), ["Mail"])
        XCTAssertEqual(try titles(client, ItemQuery(tag: "home", origin: "https://inbox.example.org/other")), ["Mail"])
        XCTAssertEqual(try titles(client, ItemQuery(tag: "hom")), [], "a part of a tag is no tag")
        XCTAssertEqual(try titles(client, ItemQuery(origin: "example.org")), [])
        var renamed = mail
        renamed.title = "Post"
        let edit = renamed
        _ = try blockingAsync { try await other.update(edit, from: mail) }
        XCTAssertEqual(try client.item(named: "post").id, mail.id)
        XCTAssertEqual(try titles(client, ItemQuery(text: "mail")), [], "the old title is no longer found")
        try blockingAsync { try await other.remove(bank.id) }
        XCTAssertEqual(try titles(client, ItemQuery(text: "money")), [])
        XCTAssertThrowsError(try client.item(named: "bank")) { XCTAssertEqual(($0 as? AgentFailure)?.kind, .noSuchItem) }
    }

    func testTheAgentsOwnWritesAreAnsweredAtOnce() throws {
        let agent = try RunningAgent()
        self.agent = agent
        let client = try agent.client()
        let boxes = try (0..<50).map { try client.add(Self.item("Box \($0)", notes: "cargo")) }
        XCTAssertEqual(try client.items(ItemQuery(text: "cargo")).count, 50)

        var edited = boxes[7]
        edited.entry.notes = "parcels"
        _ = try client.update(edited, from: boxes[7])
        let found = try client.items(ItemQuery(text: "parcels"))
        XCTAssertEqual(found.map(\.id), [boxes[7].id])
        XCTAssertEqual(found.first?.item?.entry.password, "secret of Box 7", "opened for the answer")
        XCTAssertEqual(try client.items(ItemQuery(text: "cargo")).count, 49)

        try client.remove(boxes[8].id)
        XCTAssertEqual(try client.items(ItemQuery(text: "cargo")).count, 48)
        XCTAssertThrowsError(try client.item(named: "box 8")) { XCTAssertEqual(($0 as? AgentFailure)?.kind, .noSuchItem) }
        XCTAssertEqual(try client.item(named: "BOX 7").entry.notes, "parcels")
        XCTAssertEqual(try client.items(ItemQuery(id: boxes[9].id)).map(\.id), [boxes[9].id])

        let added = try client.add(Self.item("Crate", notes: "cargo"))
        XCTAssertEqual(try client.items(ItemQuery(text: "cargo")).count, 49)
        XCTAssertEqual(try client.item(named: String(added.id.prefix(8))).id, added.id)
        // What the agent answers is what the vault holds, read without it.
        let everything = try blockingAsync { try await agent.vault.listItems(where: { _ in true }) }
        XCTAssertEqual(Set(try client.items(ItemQuery(text: "")).map(\.id)), Set(everything.map(\.id)))
    }
}

/// Which rows the index reads again after a sync the agent ran (issue 48): none after one that
/// took nothing in (an idle periodic sync), every row after one that fetched, merged or failed.
final class AgentSyncIndexTests: XCTestCase {
    private static func itemIDs(after report: SyncReport) -> [String]? {
        AgentService.itemIDs(writtenBy: .sync, answered: .sync(SyncOutcome(report)))
    }

    func testAnIdleSyncKeepsTheIndexAndAnyOtherScansAgain() {
        var idle = SyncReport()
        idle.uploaded = 3 // its own pushes change no item's content
        XCTAssertEqual(Self.itemIDs(after: idle), [])
        var fetched = SyncReport()
        fetched.downloaded = 1
        XCTAssertNil(Self.itemIDs(after: fetched))
        var merged = SyncReport()
        merged.merged = 1
        XCTAssertNil(Self.itemIDs(after: merged))
        // A refusal or a rollback put versions back; a failure may have stopped after applying some.
        for name in [SyncErrorName.forged, .rollback, .network, .offline] {
            XCTAssertNil(Self.itemIDs(after: SyncReport(error: name)), "\(name)")
        }
    }
}
