import CofferCore
import Crypto
import Foundation
import XCTest
@testable import CofferAgent

/// The agent's SSH socket from a raw client in this process (`RunningAgent`): what a stranger's
/// malformed, oversized or truncated messages get, the key order, and the uid check. The real
/// OpenSSH programs are driven in CofferCLITests' `SSHAgentTests`.
final class SSHAgentProtocolTests: XCTestCase {
    private var agents: [RunningAgent] = []

    override func tearDown() {
        for agent in agents { agent.tearDown() }
        agents = []
        super.tearDown()
    }

    private func agent() throws -> RunningAgent {
        let agent = try RunningAgent(ssh: true)
        agents.append(agent)
        return agent
    }

    /// A connection to the SSH socket with a 5-second read limit.
    private func connect(_ agent: RunningAgent) throws -> AgentSocket {
        let connection = try AgentSocket.connect(to: agent.paths.sshSocket)
        connection.setReadTimeout(seconds: 5)
        return connection
    }

    /// Sends `body` framed and returns the answer's body (nil: the agent closed the connection).
    private func exchange(_ connection: AgentSocket, _ body: Data) throws -> Data? {
        try connection.send(body)
        return try connection.receive()
    }

    private func add(_ key: SSHKey, titled title: String, to agent: RunningAgent) throws {
        _ = try blockingAsync { try await agent.vault.add(key.item(titled: title)) }
    }

    func testIdentitiesInTitleOrderAndSignaturesThatVerify() throws {
        let agent = try agent()
        let keys = try ["b", "a", "C"].map { title in (title, try SSHKey.generate(.ed25519, comment: "")) }
        for (title, key) in keys { try add(key, titled: title, to: agent) }
        var disabled = try SSHKey.generate(.ecdsa, comment: "off").item(titled: "0 disabled")
        disabled.disabled = true
        let disabledItem = disabled
        _ = try blockingAsync { try await agent.vault.add(disabledItem) }
        let connection = try connect(agent)

        var reader = SSHWireReader(try XCTUnwrap(try exchange(connection, Data([11]))))
        XCTAssertEqual(try reader.byte(), 12)
        XCTAssertEqual(try reader.uint32(), 3)
        var offered: [(Data, String)] = []
        for _ in 0..<3 { offered.append((try reader.string(), try reader.text())) }
        // By title, case aside; an empty comment is offered as the title; a disabled item not at all.
        XCTAssertEqual(offered.map(\.1), ["a", "b", "C"])
        XCTAssertEqual(offered.map(\.0), ["a", "b", "C"].map { title in keys.first { $0.0 == title }!.1.publicKeyBlob })

        var request = SSHWireWriter()
        request.byte(13)
        request.string(offered[0].0)
        request.string(Data("to be signed".utf8))
        request.uint32(0)
        var answer = SSHWireReader(try XCTUnwrap(try exchange(connection, request.data)))
        XCTAssertEqual(try answer.byte(), 14)
        var signature = SSHWireReader(try answer.string())
        XCTAssertEqual(try signature.text(), "ssh-ed25519")
        let publicKey = try Curve25519PublicKey(blob: offered[0].0)
        XCTAssertTrue(publicKey.isValidSignature(try signature.string(), for: Data("to be signed".utf8)))
    }

    /// A key in the trash (issue 43) is not offered, whether it was trashed before the agent
    /// listed it or through the agent, as `coffer rm` does; restored (`coffer restore`), it is
    /// offered again.
    func testAKeyInTheTrashIsNotOffered() throws {
        let agent = try agent()
        let kept = try SSHKey.generate(.ed25519, comment: "").item(titled: "kept")
        var trashed = try SSHKey.generate(.ed25519, comment: "").item(titled: "trashed")
        trashed.trashed = Timestamp.now()
        let trashedItem = trashed
        _ = try blockingAsync { try await agent.vault.add(kept) }
        _ = try blockingAsync { try await agent.vault.add(trashedItem) }
        func offered() throws -> [String] {
            let connection = try connect(agent)
            var reader = SSHWireReader(try XCTUnwrap(try exchange(connection, Data([11]))))
            XCTAssertEqual(try reader.byte(), 12)
            return try (0..<reader.uint32()).map { _ in _ = try reader.string(); return try reader.text() }
        }
        XCTAssertEqual(try offered(), ["kept"])
        let client = try agent.client()
        let stored = try client.item(named: "kept")
        var edited = stored
        edited.trashed = Timestamp.now()
        _ = try client.update(edited, from: stored)
        XCTAssertEqual(try offered(), [])
        let inTrash = try XCTUnwrap(try client.items(.trash).compactMap(\.item).first { $0.title == "trashed" })
        var restored = inTrash
        restored.trashed = nil
        _ = try client.update(restored, from: inTrash)
        XCTAssertEqual(try offered(), ["trashed"])
    }

    func testRSASignsOnlyWithSHA2() throws {
        let agent = try agent()
        let key = try SSHKey.generate(.rsa, comment: "rsa")
        try add(key, titled: "rsa", to: agent)
        let connection = try connect(agent)
        for (flags, expected) in [(UInt32(2), "rsa-sha2-256"), (4, "rsa-sha2-512"), (6, "rsa-sha2-512")] {
            var request = SSHWireWriter()
            request.byte(13)
            request.string(key.publicKeyBlob)
            request.string(Data("data".utf8))
            request.uint32(flags)
            var answer = SSHWireReader(try XCTUnwrap(try exchange(connection, request.data)))
            XCTAssertEqual(try answer.byte(), 14)
            var signature = SSHWireReader(try answer.string())
            XCTAssertEqual(try signature.text(), expected)
            XCTAssertEqual(try signature.string().count, 384)
        }
        var sha1 = SSHWireWriter()
        sha1.byte(13)
        sha1.string(key.publicKeyBlob)
        sha1.string(Data("data".utf8))
        sha1.uint32(0)
        XCTAssertEqual(try exchange(connection, sha1.data), Data([5]), "SHA-1 ssh-rsa is refused")
    }

    /// Malformed, truncated and unknown messages get FAILURE and the connection serves on; a
    /// message announced over 256 KiB closes the connection before a byte of it is read.
    func testHostileMessagesAreRefusedAndTheAgentServesOn() throws {
        let agent = try agent()
        let key = try SSHKey.generate(.ed25519, comment: "k")
        var add = SSHWireWriter()
        add.byte(17)
        key.write(to: &add)
        let connection = try connect(agent)
        // Every truncation of an ADD_IDENTITY, and one with a byte too many.
        for length in 0..<add.data.count {
            XCTAssertEqual(try exchange(connection, add.data.prefix(length)), Data([5]), "prefix \(length)")
        }
        XCTAssertEqual(try exchange(connection, add.data + Data([0])), Data([5]))
        // Lengths that run past the end, unknown types, other extensions, constrained adds, removal.
        XCTAssertEqual(try exchange(connection, Data([13, 0xFF, 0xFF, 0xFF, 0xFF])), Data([5]))
        XCTAssertEqual(try exchange(connection, Data([200])), Data([5]))
        var other = SSHWireWriter()
        other.byte(27)
        other.text("query")
        XCTAssertEqual(try exchange(connection, other.data), Data([5]))
        XCTAssertEqual(try exchange(connection, Data([25]) + add.data.dropFirst()), Data([5]))
        XCTAssertEqual(try exchange(connection, Data([19])), Data([5]))
        XCTAssertEqual(try blockingAsync { try await agent.vault.listItems() }.count, 0)
        // The whole message stores the key; the connection still answers.
        XCTAssertEqual(try exchange(connection, add.data), Data([6]))
        XCTAssertEqual(try blockingAsync { try await agent.vault.listItems() }.count, 1)

        // Over the limit: closed, nothing answered; a new connection is served.
        var header = Data()
        let length = UInt32(SSHAgentRequest.maximumLength + 1)
        for shift in [24, 16, 8, 0] { header.append(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
        let oversized = try connect(agent)
        _ = header.withUnsafeBytes { Glibc.send(oversized.descriptor, $0.baseAddress, 4, Int32(MSG_NOSIGNAL)) }
        XCTAssertNil(try? oversized.receive())
        XCTAssertEqual(try exchange(try connect(agent), Data([11])).map { $0.prefix(5) }, Data([12, 0, 0, 0, 1]))
    }

    /// 1,000 sign requests on 20 connections at once, while items are written through the
    /// agent's own socket: every answer is a signature that verifies for its data.
    func testAThousandConcurrentSignaturesBesideWritesAreAllValid() throws {
        let agent = try agent()
        let key = try SSHKey.generate(.ed25519, comment: "busy")
        try add(key, titled: "busy", to: agent)
        let publicKey = try Curve25519PublicKey(blob: key.publicKeyBlob)
        let failures = FailureCount()
        let writer = Thread {
            guard let client = try? agent.client() else { return failures.add() }
            for index in 0..<40 {
                let item = Item(title: "Written \(index)", entry: Entry(username: "u", password: "p\(index)"), created: .now())
                if (try? client.add(item)) == nil { failures.add() }
            }
        }
        writer.start()
        let path = agent.paths.sshSocket
        DispatchQueue.concurrentPerform(iterations: 20) { worker in
            guard let connection = try? AgentSocket.connect(to: path) else { return failures.add() }
            connection.setReadTimeout(seconds: 30)
            for index in 0..<50 {
                let data = Data("worker \(worker) request \(index)".utf8)
                var request = SSHWireWriter()
                request.byte(13)
                request.string(key.publicKeyBlob)
                request.string(data)
                request.uint32(0)
                guard (try? connection.send(request.data)) != nil, let answer = try? connection.receive() else {
                    return failures.add()
                }
                var reader = SSHWireReader(answer)
                guard (try? reader.byte()) == 14, let blob = try? reader.string() else { failures.add(); continue }
                var signature = SSHWireReader(blob)
                guard (try? signature.text()) == "ssh-ed25519", let bytes = try? signature.string(),
                      publicKey.isValidSignature(bytes, for: data) else { failures.add(); continue }
            }
        }
        while writer.isExecuting || !writer.isFinished { usleep(10_000) }
        XCTAssertEqual(failures.count, 0)
        XCTAssertEqual(try blockingAsync { try await agent.vault.listItems() }.count, 41)
    }

    /// A connection ssh bound for agent forwarding (a remote server's) may not store keys.
    func testNoKeyIsStoredThroughAForwardedAgent() throws {
        let agent = try agent()
        let host = try SSHKey.generate(.ed25519, comment: "host")
        let sessionID = Data(repeating: 3, count: 32)
        var bind = SSHWireWriter()
        bind.byte(27)
        bind.text("session-bind@openssh.com")
        bind.string(host.publicKeyBlob)
        bind.string(sessionID)
        bind.string(try host.signature(for: sessionID, flags: 0))
        bind.byte(1)
        var add = SSHWireWriter()
        add.byte(17)
        try SSHKey.generate(.ed25519, comment: "from afar").write(to: &add)
        let forwarded = try connect(agent)
        XCTAssertEqual(try exchange(forwarded, bind.data), Data([6]))
        XCTAssertEqual(try exchange(forwarded, add.data), Data([5]))
        XCTAssertEqual(try blockingAsync { try await agent.vault.listItems() }.count, 0)
        // A forged bind is refused; the same add on a connection of this machine is stored.
        var forged = bind.data
        forged[forged.count - 2] ^= 1
        XCTAssertEqual(try exchange(try connect(agent), forged), Data([5]))
        XCTAssertEqual(try exchange(try connect(agent), add.data), Data([6]))
        XCTAssertEqual(try blockingAsync { try await agent.vault.listItems() }.count, 1)
    }

    /// Another user who could reach the socket (here: its directory and socket opened up on
    /// purpose) gets no answer at all: SO_PEERCRED is checked before a byte is read.
    func testAnotherUIDGetsNothing() throws {
        XCTAssertEqual(getuid(), 0, "this test runs a client as uid 65534 with setpriv, which needs root (as `make test` has)")
        let agent = try agent()
        try add(try SSHKey.generate(.ed25519, comment: "mine"), titled: "mine", to: agent)
        chmod(agent.paths.directory, 0o755)
        chmod(agent.paths.sshSocket, 0o666)
        chmod(agent.root.path, 0o755)
        defer {
            // Closed again, so that the teardown's client trusts the directory and locks the agent.
            chmod(agent.paths.directory, 0o700)
            chmod(agent.paths.sshSocket, 0o600)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/ssh-add", "-L"]
        process.environment = ["SSH_AUTH_SOCK": agent.paths.sshSocket, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertNotEqual(process.terminationStatus, 0, text)
        XCTAssertFalse(text.contains("ssh-ed25519"), text)
        // The owner is answered.
        XCTAssertEqual(try exchange(try connect(agent), Data([11])).map { $0.prefix(5) }, Data([12, 0, 0, 0, 1]))
    }
}

private final class FailureCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func add() { lock.withLock { value += 1 } }
}

/// An Ed25519 public key read back from its wire blob, to check signatures with.
private struct Curve25519PublicKey {
    let bytes: Data

    init(blob: Data) throws {
        var reader = SSHWireReader(blob)
        guard try reader.text() == "ssh-ed25519" else { throw SSHKeyError.unsupported("not Ed25519") }
        bytes = try reader.string()
    }

    func isValidSignature(_ signature: Data, for data: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: bytes) else { return false }
        return key.isValidSignature(signature, for: data)
    }
}
