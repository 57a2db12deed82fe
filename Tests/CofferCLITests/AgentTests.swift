import CofferTestSupport
import Foundation
import XCTest

/// `coffer unlock` / `coffer lock` and the commands that go through the agent (architecture §12), with
/// the real binary: every command after the unlock runs with no passphrase source at all, so a
/// success proves the agent answered (without it: "No passphrase was given", exit 1).
final class AgentTests: XCTestCase {
    private var testVault: TestVault?

    private func vault() throws -> TestVault {
        if let testVault { return testVault }
        let vault = try TestVault.make()
        testVault = vault
        return vault
    }

    override func tearDown() {
        if let testVault {
            // No agent may outlive its test: found by command line, since a test may have left its
            // socket unusable on purpose (then `status` cannot name the agent).
            for pid in AgentProbe.processes(testVault) { kill(pid, SIGKILL) }
            testVault.destroy()
        }
        super.tearDown()
    }

    // MARK: Helpers

    /// A command with no passphrase source: empty stdin, no file.
    @discardableResult
    private func agentOK(_ vault: TestVault, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> CofferResult {
        let result = try vault.run(arguments, unlock: false, file: file, line: line)
        assertOK(result, file: file, line: line)
        return result
    }

    private func unlock(_ vault: TestVault, _ options: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> pid_t {
        let result = try vault.ok(["unlock"] + options, file: file, line: line)
        XCTAssertTrue(result.out.hasPrefix("Unlocked") || result.out.hasPrefix("Already unlocked"), result.summary, file: file, line: line)
        return try XCTUnwrap(try AgentProbe.pid(vault), "no agent after unlock", file: file, line: line)
    }

    /// `unlock` with the agent's read timeout cut to `seconds` (`COFFER_AGENT_READ_TIMEOUT`).
    private func unlock(_ vault: TestVault, readTimeout seconds: Int, _ options: [String] = [],
                        file: StaticString = #filePath, line: UInt = #line) throws -> pid_t {
        let result = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "unlock"] + options,
                                           home: vault.root, environment: ["COFFER_AGENT_READ_TIMEOUT": String(seconds)],
                                           file: file, line: line)
        assertOK(result, file: file, line: line)
        return try XCTUnwrap(try AgentProbe.pid(vault), "no agent after unlock", file: file, line: line)
    }

    private func socketDirectory(_ vault: TestVault) -> String { vault.root.appendingPathComponent("coffer").path }

    /// Every socket in the agents' directory: the agent's own and its SSH socket (issue 32).
    private func sockets(_ vault: TestVault) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: socketDirectory(vault))) ?? []).filter { $0.hasSuffix(".sock") }
    }

    /// The agent's own socket, which commands use (not its SSH socket).
    private func commandSocket(_ vault: TestVault) -> String? {
        sockets(vault).first { !$0.hasSuffix(".ssh.sock") }
    }

    // MARK: Tests

    func testOneUnlockThenTwentyCommandsWithoutAPassphrase() throws {
        let vault = try vault()
        let secret = "JBSWY3DPEHPK3PXP"
        try vault.add("GitHub", ["--username", "octocat", "--password", "hunter2-github", "--totp", secret,
                                 "--origin", "github.com", "--tag", "work"])
        let pid = try unlock(vault)
        let status = try vault.status()
        XCTAssertEqual(status["locked"] as? Bool, false)
        XCTAssertEqual((status["agent"] as? [String: Any])?["idleSeconds"] as? Double, 900)

        XCTAssertEqual(try agentOK(vault, ["show", "github", "--field", "username"]).line, "octocat")
        XCTAssertEqual(try agentOK(vault, ["show", "git", "--field", "password"]).line, "hunter2-github")
        let before = try Oathtool.totp(base32: secret, algorithm: "sha1", digits: 6, period: 30, at: Date())
        let code = String(try agentOK(vault, ["totp", "github"]).line.prefix(6))
        let after = try Oathtool.totp(base32: secret, algorithm: "sha1", digits: 6, period: 30, at: Date())
        XCTAssertTrue(code == before || code == after, "coffer \(code), oathtool \(before)/\(after)")
        let id = try agentOK(vault, ["add", "--title", "Mail", "--username", "ann", "--password", "m41l"]).line
        assertItemID(id)
        try agentOK(vault, ["edit", "mail", "--username", "ann@example.org"])
        XCTAssertEqual(try agentOK(vault, ["show", id, "--field", "username"]).line, "ann@example.org")
        XCTAssertEqual(try agentOK(vault, ["list", "--json"]).jsonArray().count, 2)
        XCTAssertEqual(try agentOK(vault, ["list", "--tag", "work", "--json"]).jsonArray().map { $0["title"] as? String }, ["GitHub"])
        XCTAssertEqual(try agentOK(vault, ["list", "--origin", "https://github.com/login", "--json"]).jsonArray().count, 1)
        XCTAssertEqual(try agentOK(vault, ["search", "ann@", "--json"]).jsonArray().map { $0["id"] as? String }, [id])
        XCTAssertEqual(try agentOK(vault, ["search", "nothing-like-this", "--json"]).jsonArray().count, 0)
        let shown = try agentOK(vault, ["show", "mail", "--json", "--reveal"]).jsonObject()
        XCTAssertEqual(shown["password"] as? String, "m41l")
        XCTAssertEqual((shown["badges"] as? [String]), ["pending"])
        XCTAssertEqual(try agentOK(vault, ["history", "mail", "--json"]).jsonArray().count, 1)
        try agentOK(vault, ["add", "--title", "Mailbox"])
        let ambiguous = try vault.run(["show", "mai"], unlock: false)
        XCTAssertEqual(ambiguous.status, 6, ambiguous.summary)
        XCTAssertTrue(ambiguous.err.contains("Mailbox") && ambiguous.err.contains(id), ambiguous.summary)
        let exported = vault.work.appendingPathComponent("export.json").path
        try agentOK(vault, ["export", exported])
        let titles = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exported))) as? [[String: Any]])
            .compactMap { $0["title"] as? String }
        XCTAssertEqual(titles, ["GitHub", "Mail", "Mailbox"])
        try agentOK(vault, ["rm", "mail"])
        assertError(try vault.run(["show", id], unlock: false), 4)
        let incoming = try vault.writeWorkFile("in.json", #"[{"title": "Bank", "username": "b", "password": "p"}]"#)
        try agentOK(vault, ["import", incoming])
        XCTAssertEqual(try agentOK(vault, ["list", "--json"]).jsonArray().compactMap { $0["title"] as? String }.sorted(),
                       ["Bank", "GitHub", "Mailbox"])
        let health = try agentOK(vault, ["health", "--json"]).jsonObject()
        XCTAssertTrue((health["weak"] as? [[String: Any]] ?? []).contains { $0["title"] as? String == "Bank" }, "\(health)")
        try agentOK(vault, ["generate"])
        XCTAssertEqual(try AgentProbe.pid(vault), pid, "one agent served every command")
        XCTAssertEqual(AgentProbe.processes(vault), [pid])
    }

    func testAWrongPassphraseStartsNothing() throws {
        let vault = try vault()
        let wrong = try vault.writeWorkFile("wrong", "not the passphrase\n")
        let result = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", wrong, "unlock"], home: vault.root)
        assertError(result, 3, mentions: ["passphrase"])
        XCTAssertEqual(sockets(vault), [])
        XCTAssertEqual(AgentProbe.processes(vault), [])
        XCTAssertNil(try AgentProbe.pid(vault))
        XCTAssertEqual(try vault.status()["locked"] as? Bool, true)
    }

    func testLockWipesTheAgentAndCommandsAskAgain() throws {
        let vault = try vault()
        try vault.add("Bank", ["--password", "b4nk"])
        let pid = try unlock(vault)
        let locked = try agentOK(vault, ["lock"])
        XCTAssertTrue(locked.out.hasPrefix("Locked"), locked.summary)
        AgentProbe.waitUntilGone(pid)
        XCTAssertEqual(sockets(vault), [], "the socket outlived its agent")
        assertError(try vault.run(["show", "bank", "--field", "password"], unlock: false), 1, mentions: ["no passphrase"])
        XCTAssertEqual(try vault.ok(["show", "bank", "--field", "password"]).line, "b4nk")
        XCTAssertTrue(try agentOK(vault, ["lock"]).out.hasPrefix("No agent"))
    }

    func testIdleLockAndEveryUseRestartsTheClock() throws {
        let vault = try vault()
        try vault.add("Bank")
        let pid = try unlock(vault, ["--idle", "3"])
        // Used every second for 6 s: twice the limit, and still unlocked.
        for _ in 0..<6 {
            sleep(1)
            try agentOK(vault, ["show", "bank", "--field", "title"])
        }
        XCTAssertTrue(AgentProbe.isRunning(pid))
        // `status` is no use: it does not restart the clock.
        let deadline = Date().addingTimeInterval(15)
        while AgentProbe.isRunning(pid) && Date() < deadline {
            _ = try vault.status()
            usleep(500_000)
        }
        XCTAssertFalse(AgentProbe.isRunning(pid), "the agent did not lock when idle")
        XCTAssertEqual(sockets(vault), [])
        XCTAssertNil(try AgentProbe.pid(vault))
    }

    func testSignalsLockTheAgent() throws {
        let vault = try vault()
        for signal in [SIGTERM, SIGHUP] {
            let pid = try unlock(vault)
            kill(pid, signal)
            AgentProbe.waitUntilGone(pid)
            XCTAssertEqual(sockets(vault), [], "signal \(signal) left the socket")
        }
    }

    func testAKilledAgentsStaleSocketIsReplaced() throws {
        let vault = try vault()
        try vault.add("Bank", ["--password", "b4nk"])
        let first = try unlock(vault)
        kill(first, SIGKILL)
        AgentProbe.waitUntilGone(first)
        XCTAssertEqual(sockets(vault).count, 2, "kill -9 leaves both sockets behind")
        // The next command finds nobody behind it and asks for the passphrase again.
        assertError(try vault.run(["show", "bank", "--field", "password"], unlock: false), 1, mentions: ["no passphrase"])
        XCTAssertEqual(try vault.ok(["show", "bank", "--field", "password"]).line, "b4nk")
        XCTAssertNil(try AgentProbe.pid(vault))
        let second = try unlock(vault)
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(try agentOK(vault, ["show", "bank", "--field", "password"]).line, "b4nk")
    }

    func testTwoUnlocksAtOnceMakeOneAgent() throws {
        let vault = try vault()
        let results = try vault.okAll([["unlock"], ["unlock"], ["unlock"]])
        let pid = try XCTUnwrap(try AgentProbe.pid(vault))
        for result in results { XCTAssertTrue(result.out.contains("pid \(pid)"), result.summary) }
        XCTAssertEqual(AgentProbe.processes(vault), [pid])
        // Unlocking again reuses it, with the new idle limit.
        let again = try vault.ok(["unlock", "--idle", "60"])
        XCTAssertTrue(again.out.hasPrefix("Already unlocked"), again.summary)
        XCTAssertEqual((try vault.status()["agent"] as? [String: Any])?["idleSeconds"] as? Double, 60)
        XCTAssertEqual(AgentProbe.processes(vault), [pid])
    }

    func testConcurrentCommandsThroughOneAgent() throws {
        let vault = try vault()
        let pid = try unlock(vault)
        let adds = try vault.runAll((0..<12).map { ["add", "--title", "Item \($0)", "--password", "secret-\($0)"] }, unlock: false)
        for result in adds { assertOK(result) }
        let reads = try vault.runAll((0..<12).map { ["show", "item \($0)", "--field", "password"] }
            + (0..<6).map { _ in ["search", "item", "--json"] }, unlock: false)
        for (index, result) in reads.enumerated() {
            assertOK(result)
            if index < 12 { XCTAssertEqual(result.line, "secret-\(index)") }
            else { XCTAssertEqual(try result.jsonArray().count, 12) }
        }
        // A write by a process that is not the agent shows through it at once.
        try vault.add("Written beside", ["--password", "beside"])
        XCTAssertEqual(try agentOK(vault, ["show", "written beside", "--field", "password"]).line, "beside")
        XCTAssertEqual(try AgentProbe.pid(vault), pid)
    }

    func testUnsafeSocketDirectoryOrSocketIsRefusedWithWhy() throws {
        let vault = try vault()
        try vault.add("Bank", ["--password", "b4nk"])
        _ = try unlock(vault)
        let directory = socketDirectory(vault)
        let socket = directory + "/" + (try XCTUnwrap(commandSocket(vault)))
        // A socket open to others: not used; the command says why and asks for the passphrase.
        XCTAssertEqual(chmod(socket, 0o666), 0)
        var result = try vault.run(["show", "bank", "--field", "password"])
        assertOK(result)
        XCTAssertEqual(result.line, "b4nk")
        XCTAssertTrue(result.err.contains("mode 666") && result.err.contains("will not use it"), result.summary)
        result = try vault.run(["show", "bank"], unlock: false)
        XCTAssertEqual(result.status, 1, result.summary)
        XCTAssertTrue(result.err.contains("mode 666") && result.err.contains("No passphrase was given"), result.summary)
        XCTAssertEqual(chmod(socket, 0o600), 0)
        try agentOK(vault, ["show", "bank"])
        // A directory open to others.
        XCTAssertEqual(chmod(directory, 0o755), 0)
        result = try vault.run(["unlock"])
        assertError(result, 1, mentions: ["mode 755", "will not use it"])
        XCTAssertEqual(chmod(directory, 0o700), 0)
        guard getuid() == 0 else {
            XCTAssertNotEqual(ProcessInfo.processInfo.environment["CI"], "true", "CI runs as root, to make another user's socket")
            return
        }
        // A directory of another user (the fallback in /tmp can be made by anyone).
        XCTAssertEqual(chown(directory, 65534, 65534), 0)
        result = try vault.run(["unlock"])
        assertError(result, 1, mentions: ["belongs to uid 65534", "will not use it"])
        result = try vault.run(["show", "bank", "--field", "password"])
        XCTAssertEqual(result.line, "b4nk", result.summary)
        XCTAssertTrue(result.err.contains("belongs to uid 65534"), result.summary)
        XCTAssertEqual(chown(directory, 0, 0), 0)
    }

    /// Another uid that reaches the socket (modes opened on purpose) gets no answer: the agent
    /// checks SO_PEERCRED before it reads a byte.
    func testAnotherUIDIsRefusedByTheAgent() throws {
        let vault = try vault()
        try vault.add("Bank", ["--password", "b4nk"])
        _ = try unlock(vault)
        guard getuid() == 0 else {
            XCTAssertNotEqual(ProcessInfo.processInfo.environment["CI"], "true", "CI runs as root, to act as another user")
            return
        }
        let directory = socketDirectory(vault)
        let socket = directory + "/" + (try XCTUnwrap(commandSocket(vault)))
        for path in [vault.root.path, directory, socket] { XCTAssertEqual(chmod(path, 0o777), 0) }
        defer { chmod(directory, 0o700) }
        let request = #"{"operation":"item","name":"bank"}"#
        let client = """
        import socket, struct, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        body = sys.argv[2].encode()
        s.settimeout(10)
        answer = b""
        try:
            # Inside the try: a refusing agent may close before the request is all sent (EPIPE).
            s.sendall(struct.pack(">I", len(body)) + body)
            while len(answer) < 4 or len(answer) < 4 + struct.unpack(">I", answer[:4])[0]:
                chunk = s.recv(65536)
                if not chunk: break
                answer += chunk
        except OSError as error:
            sys.stdout.write("refused: " + str(error))
            sys.exit(0)
        sys.stdout.write(answer[4:].decode() if answer else "refused: closed")
        """
        let script = try vault.writeWorkFile("client.py", client)
        XCTAssertEqual(chmod(vault.work.path, 0o755), 0)
        XCTAssertEqual(chmod(script, 0o644), 0)
        let asNobody = try ToolProcess.run("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups",
                                                                "/usr/bin/python3", script, socket, request])
        XCTAssertEqual(asNobody.status, 0, asNobody.output)
        XCTAssertTrue(asNobody.output.hasPrefix("refused: "), "another uid got an answer: \(asNobody.output)")
        // The same request from this uid is answered: the item, password and all.
        let asOwner = try ToolProcess.run("/usr/bin/python3", [script, socket, request])
        let answer = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(asOwner.output.utf8)) as? [String: Any], asOwner.output)
        let item = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(answer["item"] as? String)))
        XCTAssertTrue(String(decoding: item, as: UTF8.self).contains(#""password":"b4nk""#))
    }

    func testNoPlaintextInTheSocketDirectoryOrLogs() throws {
        let vault = try vault()
        let canaries = (0..<3).map { _ in CanaryScanner.randomCanary() }
        _ = try unlock(vault)
        for (index, canary) in canaries.enumerated() {
            let result = try vault.run(["add", "--title", "Canary \(index)", "--password", canary, "--notes", canary],
                                       unlock: false)
            assertOK(result)
            XCTAssertFalse(result.err.contains(canary))
        }
        XCTAssertEqual(try agentOK(vault, ["show", "canary 1", "--field", "password"]).line, canaries[1])
        // The socket directory holds the socket and the empty start lock, nothing else.
        let directory = socketDirectory(vault)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            if name.hasSuffix(".sock") {
                XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeSocket)
            } else {
                XCTAssertTrue(name.hasSuffix(".start"), name)
                XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, 0, name)
            }
        }
        let scanner = CanaryScanner(canaries: canaries)
        let (files, hits) = try scanner.scan(directory: vault.directory)
        XCTAssertFalse(files.isEmpty)
        XCTAssertEqual(hits.map(\.description), [], "plaintext in the vault's directory")
    }

    /// The shell's completion of NAME (what the generated scripts run): titles while an agent
    /// holds the vault, nothing — and no prompt — without one.
    func testCompletionOfNamesComesFromTheAgentOnly() throws {
        let vault = try vault()
        for title in ["GitHub", "GitLab", "Bank"] { try vault.add(title) }
        let complete = ["---completion", "show", "--", "positional@0", "4", "2", "coffer", "--vault", vault.path, "show", "gi"]
        let locked = try CofferProcess.run(complete, home: vault.root)
        assertOK(locked)
        XCTAssertEqual(locked.out.trimmingCharacters(in: .whitespacesAndNewlines), "", locked.summary)
        _ = try unlock(vault)
        let unlocked = try CofferProcess.run(complete, home: vault.root)
        assertOK(unlocked)
        XCTAssertEqual(unlocked.out.split(separator: "\n").map(String.init), ["GitHub", "GitLab"])
    }

    /// The shell prints completions to the terminal as they are: a title holding a control is not
    /// offered, and the list, `show` and its errors through the agent show escapes.
    func testCompletionAndAgentAnswersLeaveControlsOut() throws {
        let vault = try vault()
        let hostile = "Gi" + Hostile.text("agent")
        for title in ["GitHub", hostile] { try vault.add(title) }
        _ = try unlock(vault)
        let complete = ["---completion", "show", "--", "positional@0", "4", "2", "coffer", "--vault", vault.path, "show", "gi"]
        let unlocked = try CofferProcess.run(complete, home: vault.root)
        assertOK(unlocked)
        assertTerminalSafe(unlocked)
        XCTAssertEqual(unlocked.out.split(separator: "\n").map(String.init), ["GitHub"])
        assertTerminalSafe(try agentOK(vault, ["list"]), shows: [Hostile.shown("agent")])
        assertTerminalSafe(try agentOK(vault, ["show", "pwned-agent"]), shows: [Hostile.shown("agent")])
        let missing = try vault.run(["show", "no\u{1B}]0;AGENT\u{07}"], unlock: false)
        assertError(missing, 4)
        assertTerminalSafe(missing, shows: ["no\\e]0;AGENT\\a"])
    }

    /// A vault file removed (or moved) leaves its agent nothing to serve: it locks within seconds.
    func testAnAgentWhoseVaultFileIsGoneLocks() throws {
        let vault = try vault()
        let pid = try unlock(vault)
        try FileManager.default.moveItem(atPath: vault.path, toPath: vault.path + ".moved")
        AgentProbe.waitUntilGone(pid)
        XCTAssertEqual(sockets(vault), [])
    }

    // MARK: Limits (issue 28, finding 7)

    /// A request announcing 300 MiB is refused from its header, with one sentence, and its
    /// connection closed: the agent reads none of it (its memory stays low while the client tries
    /// to send it all) and serves the next command.
    func testAnOversizedRequestIsRefusedUnreadAndTheAgentServesOn() throws {
        let vault = try vault()
        try vault.add("Bank", ["--password", "b4nk"])
        let pid = try unlock(vault)
        let wire = try AgentWire(vault)
        let declared = 300 << 20
        let started = Date()
        XCTAssertTrue(wire.send(AgentWire.header(declared)))
        // Then the body, as a client would, until the agent has closed on it.
        let chunk = [UInt8](repeating: 0x41, count: 1 << 20)
        var sent = 0
        while sent < declared && wire.send(chunk) { sent += chunk.count }
        let (answer, closed) = wire.readUntilClosed(seconds: 10)
        XCTAssertTrue(closed, "the agent closed the connection")
        XCTAssertLessThan(sent, declared, "the agent stopped taking the body")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "refused at once")
        let failure = try XCTUnwrap(try AgentWire.firstAnswer(answer)["failure"] as? [String: Any])
        let message = try XCTUnwrap(failure["message"] as? String)
        XCTAssertTrue(message.contains("request of \(declared) bytes") && message.contains("32 MiB"), message)
        let resident = try XCTUnwrap(AgentWire.residentBytes(pid))
        XCTAssertLessThan(resident, 100 << 20, "the agent's memory: \(resident >> 20) MiB")
        XCTAssertEqual(try agentOK(vault, ["show", "bank", "--field", "password"]).line, "b4nk")
        XCTAssertEqual(try agentOK(vault, ["list", "--json"]).jsonArray().count, 1)
        XCTAssertEqual(try AgentProbe.pid(vault), pid)
    }

    /// A client that connects and says nothing, and one that stops mid-header, are disconnected
    /// after the read timeout (2 s here, 30 s by default); the agent answers others meanwhile.
    func testSilentAndStalledClientsAreDisconnectedWhileOthersAreServed() throws {
        let vault = try vault()
        try vault.add("Bank", ["--password", "b4nk"])
        let pid = try unlock(vault, readTimeout: 2)
        let started = Date()
        let silent = try AgentWire(vault)
        let stalled = try AgentWire(vault)
        XCTAssertTrue(stalled.send([0, 0]))
        XCTAssertEqual(try agentOK(vault, ["show", "bank", "--field", "password"]).line, "b4nk")
        for wire in [silent, stalled] {
            let (answer, closed) = wire.readUntilClosed(seconds: 15)
            XCTAssertTrue(closed, "the agent still holds the connection")
            XCTAssertEqual(answer, [], "closed without an answer")
        }
        let took = Date().timeIntervalSince(started)
        XCTAssertTrue(took >= 1.5 && took < 10, "closed after \(took) s")
        XCTAssertEqual(try agentOK(vault, ["list", "--json"]).jsonArray().count, 1)
        XCTAssertEqual(try AgentProbe.pid(vault), pid)
    }

    /// `renew` with a negative idle time (which would never run out) is refused like
    /// `unlock --idle -5`; the agent keeps its limit and still locks on it.
    func testRenewWithANegativeIdleTimeIsRefusedAndTheOldLimitHolds() throws {
        let vault = try vault()
        let pid = try unlock(vault, ["--idle", "3"])
        assertError(try vault.run(["unlock", "--idle", "-5"]), 2, mentions: ["--idle"])
        let wire = try AgentWire(vault)
        wire.sendFrame(#"{"operation":"renew","idle":-5}"#)
        let answer = try AgentWire.firstAnswer(wire.readUntilClosed(seconds: 1).data)
        let failure = try XCTUnwrap(answer["failure"] as? [String: Any], "\(answer)")
        XCTAssertEqual(failure["exitCode"] as? Int, 2)
        XCTAssertEqual(failure["message"] as? String,
                       "The idle time must be a number of seconds, 0 or more; the limit is unchanged.")
        XCTAssertEqual((try vault.status()["agent"] as? [String: Any])?["idleSeconds"] as? Double, 3)
        AgentProbe.waitUntilGone(pid, seconds: 15)
        XCTAssertEqual(sockets(vault), [])
    }

    /// An import too big for one request to the agent (70,000 items, ~37 MB) is not sent: the
    /// command says so and how to import without the agent; nothing is imported, the agent runs on.
    func testAnImportOverTheRequestLimitIsNotSentAndSaysWhatToDo() throws {
        let vault = try vault()
        let pid = try unlock(vault)
        let items = (0..<70_000).map { index in
            ["title": "Site \(index) example account", "username": "user\(index)@example.org",
             "password": "pw-\(index)-0123456789abcdef", "origins": ["https://www.site\(index).example.com/login"],
             "tags": ["work"], "notes": "Some note about account \(index)"] as [String: Any]
        }
        let file = try vault.writeWorkFile("many.json", try JSONSerialization.data(withJSONObject: items))
        let result = try vault.run(["import", file], unlock: false)
        assertError(result, 1, mentions: ["over the agent's limit of 32 MiB", "coffer lock"])
        XCTAssertEqual(try agentOK(vault, ["list", "--json"]).jsonArray().count, 0)
        XCTAssertEqual(try AgentProbe.pid(vault), pid)
    }
}
