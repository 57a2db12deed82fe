import CofferCore
import Foundation
import XCTest
@testable import CofferAgent

/// A server and its clients in this process, over a real socket, with a real unlocked vault
/// (`RunningAgent`): what a command does through the agent, the limits, and the lock.
final class AgentServerTests: XCTestCase {
    private var agents: [RunningAgent] = []

    private func agent(idle: Double = 900, readTimeout: Double = 30) throws -> RunningAgent {
        let agent = try RunningAgent(idle: idle, readTimeout: readTimeout)
        agents.append(agent)
        return agent
    }

    override func tearDown() {
        for agent in agents { agent.tearDown() }
        agents = []
        super.tearDown()
    }

    private static func item(_ title: String, username: String = "ann", password: String = "secret") -> Item {
        Item(title: title, entry: Entry(username: username, password: password, notes: ""), created: .now())
    }

    /// Add, list, search, show, edit and remove through a client, as the item commands do.
    func testItemsThroughTheAgent() throws {
        let agent = try agent()
        let client = try agent.client()
        XCTAssertEqual(client.status.pid, getpid())
        XCTAssertEqual(client.status.vault, agent.paths.vault)
        let added = try client.add(Self.item("Bank", password: "b4nk"))
        XCTAssertEqual(try client.items(.everything).map(\.item?.title), ["Bank"])
        XCTAssertEqual(try client.item(named: "bank").entry.password, "b4nk")
        XCTAssertEqual(try client.item(named: added.id), added)

        var edit = added
        edit.entry.username = "ann@example.org"
        let saved = try client.update(edit, from: added)
        XCTAssertEqual(saved.item.entry.username, "ann@example.org")
        XCTAssertFalse(saved.mergedWithNewer)
        XCTAssertEqual(try client.items(ItemQuery(text: "ann@example")).map(\.id), [added.id])
        XCTAssertEqual(try client.items(ItemQuery(text: "nothing like it")).count, 0)
        // What the agent wrote is in the vault file: the vault opened here reads it too.
        XCTAssertEqual(try blockingAsync { try await agent.vault.item(added.id) }.entry.username, "ann@example.org")

        try client.addAll([Self.item("Mail"), Self.item("Mailbox")])
        XCTAssertEqual(try client.items(.everything).compactMap(\.item?.title).sorted(), ["Bank", "Mail", "Mailbox"])
        try client.remove(added.id)
        XCTAssertEqual(try client.items(.everything).count, 2)
        XCTAssertEqual(kind(of: { try client.item(named: "bank") }), .noSuchItem)
        XCTAssertEqual(kind(of: { try client.item(named: "mai") }), .ambiguous)
        XCTAssertLessThan(abs(try client.now().timeIntervalSinceNow), 60)
    }

    /// A failure comes back as its kind and sentence; the agent serves on.
    func testFailuresComeBackWithTheirKinds() throws {
        let agent = try agent(idle: 300)
        let client = try agent.client()
        XCTAssertThrowsError(try client.renew(idle: -5)) { error in
            XCTAssertEqual(error as? AgentFailure, .invalidIdle)
        }
        XCTAssertEqual(try XCTUnwrap(try AgentVault.status(agent.paths)).idleSeconds, 300, "the limit is unchanged")
        XCTAssertEqual(try client.renew(idle: 60).idleSeconds, 60)
        XCTAssertThrowsError(try client.sync()) { XCTAssertEqual($0 as? AgentFailure, .noAccount) }
        XCTAssertThrowsError(try client.devices()) { XCTAssertEqual($0 as? AgentFailure, .noAccount) }
        var invalid = Self.item("Bank")
        invalid.entry.password = String(repeating: "x", count: ItemValidation.shortTextLimit + 1)
        XCTAssertEqual(kind(of: { try client.add(invalid) }), .invalidItem)
        XCTAssertEqual(try client.items(.everything).count, 0)
    }

    /// A request over 32 MiB: the client does not send it; announced anyway, the agent refuses it
    /// from its header with one sentence and closes the connection, then serves on.
    func testARequestOverTheLimitIsRefusedWithItsSentence() throws {
        let agent = try agent()
        let client = try agent.client()
        let notes = String(repeating: "n", count: 100_000)
        let items = (0..<300).map { Item(title: "Site \($0)", entry: Entry(username: "u", password: "p", notes: notes), created: .now()) }
        XCTAssertThrowsError(try client.addAll(items)) { error in
            let failure = error as? AgentFailure
            XCTAssertEqual(failure?.kind, .other)
            XCTAssertTrue(failure?.message.contains("over the agent's limit of 32 MiB") == true, "\(error)")
        }

        let raw = try AgentSocket.connect(to: agent.paths.socket)
        let announced = AgentSocket.maximumRequest + 1
        XCTAssertTrue(send(raw, (0..<4).map { UInt8(truncatingIfNeeded: announced >> (24 - 8 * $0)) }))
        let answer = try XCTUnwrap(try raw.receive(), "no answer")
        guard case .failure(let failure) = try JSONDecoder().decode(AgentResponse.self, from: answer) else {
            return XCTFail("not a failure: \(String(decoding: answer, as: UTF8.self))")
        }
        XCTAssertEqual(failure, AgentFailure(.other, AgentServer.refusal(announced)))
        XCTAssertTrue(failure.message.contains("A request of \(announced) bytes") && failure.message.contains("32 MiB"))
        XCTAssertNil(try raw.receive(), "the connection is closed")
        XCTAssertEqual(try client.items(.everything).count, 0, "nothing was imported, and the agent serves on")
    }

    /// A frame that is no request closes its connection without an answer; others are served.
    func testAMalformedFrameClosesItsConnection() throws {
        let agent = try agent()
        for text in ["not json", #"{"operation":"unlockEverything"}"#, #"{"operation":"item"}"#] {
            let raw = try AgentSocket.connect(to: agent.paths.socket)
            try raw.send(Data(text.utf8))
            XCTAssertNil(try raw.receive(), "\(text) was answered")
        }
        let raw = try AgentSocket.connect(to: agent.paths.socket)
        try raw.send(Data(#"{"operation":"status"}"#.utf8))
        let answer = try JSONDecoder().decode(AgentResponse.self, from: try XCTUnwrap(try raw.receive()))
        guard case .status(let status) = answer else { return XCTFail("\(answer)") }
        XCTAssertEqual(status.vault, agent.paths.vault)
    }

    /// The agent closes a connection silent for its read timeout; the client's next request
    /// opens another and is answered.
    func testAnIdleConnectionIsClosedAndTheClientReconnects() throws {
        let agent = try agent(readTimeout: 1)
        let client = try agent.client()
        _ = try client.add(Self.item("Bank"))
        let silent = try AgentSocket.connect(to: agent.paths.socket)
        XCTAssertFalse(silent.isClosedByPeer)
        Thread.sleep(forTimeInterval: 1.8)
        XCTAssertTrue(silent.isClosedByPeer, "the agent still holds a silent connection")
        XCTAssertEqual(try client.items(.everything).map(\.item?.title), ["Bank"])
        XCTAssertEqual(try client.item(named: "bank").title, "Bank")
    }

    /// `lock`: answered, then the socket is gone, the keys wiped, and the server terminates.
    func testALockRequestLocksTheAgent() throws {
        let agent = try agent()
        try agent.client().lock()
        XCTAssertTrue(agent.waitUntilStopped())
        XCTAssertEqual(agent.terminations, [.lockRequested])
        XCTAssertNotEqual(access(agent.paths.socket, F_OK), 0, "the socket outlived the agent")
        XCTAssertTrue(try blockingAsync { await agent.vault.isLocked })
        XCTAssertNil(try AgentVault.connect(agent.paths))
    }

    /// The idle limit on the server's clock; `status` tells the time left and is no use.
    func testTheIdleLimitLocksTheAgent() throws {
        let agent = try agent(idle: 60)
        agent.clock.advance(by: 50)
        XCTAssertEqual(try XCTUnwrap(try AgentVault.status(agent.paths)).locksInSeconds, 10)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertFalse(agent.waitUntilStopped(seconds: 0), "locked before its limit")
        agent.clock.advance(by: 10)
        XCTAssertTrue(agent.waitUntilStopped())
        XCTAssertEqual(agent.terminations, [.idle])
        XCTAssertTrue(try blockingAsync { await agent.vault.isLocked })
    }

    /// A use restarts the clock: connecting (a `renew`) and any request.
    func testAUseRestartsTheIdleClock() throws {
        let agent = try agent(idle: 60)
        agent.clock.advance(by: 50)
        let client = try agent.client()
        XCTAssertEqual(client.status.locksInSeconds, 60)
        agent.clock.advance(by: 50)
        _ = try client.items(.everything)
        agent.clock.advance(by: 50)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertFalse(agent.waitUntilStopped(seconds: 0), "locked 50 s after a use")
        XCTAssertEqual(try XCTUnwrap(try AgentVault.status(agent.paths)).locksInSeconds, 10)
    }

    func testAVaultFileGoneLocksTheAgent() throws {
        let agent = try agent()
        try FileManager.default.removeItem(atPath: agent.paths.vault)
        XCTAssertTrue(agent.waitUntilStopped())
        XCTAssertEqual(agent.terminations, [.vaultFileGone])
    }

    /// An answer that does not fit its request, or does not decode, is a protocol error (here
    /// from a fake agent that answers what it is told to).
    func testAMismatchedOrMalformedAnswerIsAProtocolError() throws {
        let agent = try agent()
        try agent.client().lock()
        XCTAssertTrue(agent.waitUntilStopped())
        let status = AgentResponse.status(AgentStatus(pid: 1, vault: agent.paths.vault, idleSeconds: 0, locksInSeconds: nil))
        let fake = try FakeAgent(at: agent.paths.socket, answers: [
            try JSONEncoder().encode(status), try JSONEncoder().encode(status), Data(#"{"item":"AAAA"}"#.utf8),
            Data(#"{"failure":{"exitCode":99,"message":"?"}}"#.utf8),
        ])
        let client = try agent.client()
        XCTAssertThrowsError(try client.items(.everything)) { error in
            XCTAssertEqual("\(error)", "\(AgentError.protocolError("it answered its status to `items`"))")
        }
        for _ in 0..<2 {
            XCTAssertThrowsError(try client.item(named: "bank")) { error in
                XCTAssertEqual("\(error)", "\(AgentError.protocolError("a malformed answer"))")
            }
        }
        fake.stop()
    }

    // MARK: Helpers

    private func kind<Value>(of body: () throws -> Value, file: StaticString = #filePath, line: UInt = #line) -> AgentFailure.Kind? {
        do {
            _ = try body()
            XCTFail("no failure", file: file, line: line)
            return nil
        } catch {
            XCTAssertTrue(error is AgentFailure, "\(error)", file: file, line: line)
            return (error as? AgentFailure)?.kind
        }
    }

    private func send(_ socket: AgentSocket, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(socket.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }
}

/// A listener at an agent's socket that answers each request with the next of `answers`.
private final class FakeAgent: @unchecked Sendable {
    private let listener: AgentSocket

    init(at path: String, answers: [Data]) throws {
        listener = try AgentSocket.listen(at: path)
        let thread = Thread { [listener] in
            guard let connection = listener.accept() else { return }
            for answer in answers {
                guard case .request = connection.receiveRequest(within: 10) else { return }
                try? connection.send(answer)
            }
        }
        thread.start()
    }

    func stop() {
        listener.stopAccepting()
    }
}
