import CofferTestSupport
import Foundation
import XCTest

/// Issue 32's SSH part with the real OpenSSH 9 programs and nothing stubbed: `ssh-add`,
/// `ssh-keygen -Y sign/verify` and `ssh` into a loopback `sshd`, all through the agent's SSH socket
/// (`coffer ssh socket`). Run alone with `swift test --skip-build --filter SSHAgentTests`.
final class SSHAgentTests: XCTestCase {
    private var testVault: TestVault?
    private var sshd: LoopbackSSHD?

    override func tearDown() {
        sshd?.stop()
        if let testVault {
            for pid in AgentProbe.processes(testVault) { kill(pid, SIGKILL) }
            testVault.destroy()
        }
        super.tearDown()
    }

    // MARK: Helpers

    private func vault() throws -> TestVault {
        if let testVault { return testVault }
        let vault = try TestVault.make()
        testVault = vault
        return vault
    }

    /// `coffer unlock`, and the tools pointed at the socket it names.
    @discardableResult
    private func unlock(_ vault: TestVault, _ options: [String] = [], file: StaticString = #filePath,
                        line: UInt = #line) throws -> OpenSSHTools {
        let result = try vault.ok(["unlock"] + options, file: file, line: line)
        let socket = try vault.ok(["ssh", "socket"], file: file, line: line).line
        XCTAssertTrue(result.out.contains("export SSH_AUTH_SOCK=\(socket)"), result.summary, file: file, line: line)
        return OpenSSHTools(socket: socket, work: vault.work)
    }

    private func publicKey(_ vault: TestVault, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try vault.ok(["show", name, "--field", "public-key"], file: file, line: line).line
    }

    // MARK: Listing and signing

    func testSSHAddListsTheVaultsKeysInTitleOrderWithTheirFingerprints() throws {
        let vault = try vault()
        for (name, type) in [("zeta", "ed25519"), ("alpha", "ecdsa"), ("Mid", "rsa")] {
            let line = try vault.ok(["ssh", "generate", name, "--type", type]).line
            XCTAssertEqual(line, try publicKey(vault, name))
        }
        let tools = try unlock(vault)
        let listed = try tools.listed()
        XCTAssertEqual(listed.status, 0)
        XCTAssertEqual(listed.lines.count, 3, listed.lines.joined(separator: "\n"))
        // ssh-add -l: bits, fingerprint, comment (the title, by default), type.
        let expected = try [("alpha", "256", "ECDSA"), ("Mid", "3072", "RSA"), ("zeta", "256", "ED25519")].map { name, bits, type in
            "\(bits) \(try vault.ok(["show", name, "--field", "fingerprint"]).line) \(name) (\(type))"
        }
        XCTAssertEqual(listed.lines, expected)
        let lines = try tools.run("ssh-add", ["-L"]).outputText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, try ["alpha", "Mid", "zeta"].map { try publicKey(vault, $0) })
        // The same order every time.
        XCTAssertEqual(try tools.listed().lines, expected)
    }

    func testSSHKeygenSignsThroughTheAgentWithEachKeyTypeAndVerifies() throws {
        let vault = try vault()
        for type in ["ed25519", "ecdsa", "rsa"] { try vault.ok(["ssh", "generate", "key-\(type)", "--type", type]) }
        let tools = try unlock(vault)
        for type in ["ed25519", "ecdsa", "rsa"] {
            let verified = try tools.signAndVerify(publicKey: try publicKey(vault, "key-\(type)"))
            XCTAssertEqual(verified.status, 0, "\(type): \(verified.outputText) \(verified.errorText)")
            XCTAssertTrue(verified.outputText.contains("Good \"file\" signature"), "\(type): \(verified.outputText)")
        }
        // A key the vault does not hold is not signed with.
        let stranger = try tools.keygen("ed25519", comment: "stranger")
        let refused = try tools.signAndVerify(publicKey: try String(contentsOfFile: stranger + ".pub", encoding: .utf8)
            .trimmingCharacters(in: .newlines))
        XCTAssertNotEqual(refused.status, 0, refused.outputText)
    }

    func testKeysMadeByKeygenImportAndSign() throws {
        let vault = try vault()
        let tools = OpenSSHTools(socket: "", work: vault.work)
        var lines: [String: String] = [:]
        for type in ["ed25519", "ecdsa", "rsa"] {
            let path = try tools.keygen(type, comment: "made-\(type)")
            let printed = try vault.ok(["ssh", "import", "imported-\(type)", path]).line
            let made = try String(contentsOfFile: path + ".pub", encoding: .utf8).trimmingCharacters(in: .newlines)
            XCTAssertEqual(printed, made)
            XCTAssertEqual(try publicKey(vault, "imported-\(type)"), made)
            lines[type] = made
        }
        let agent = try unlock(vault)
        for (type, line) in lines {
            let verified = try agent.signAndVerify(publicKey: line)
            XCTAssertEqual(verified.status, 0, "\(type): \(verified.outputText) \(verified.errorText)")
        }
        // The private key is the vault's secret: shown only with --reveal, as OpenSSH reads it.
        let item = try vault.show("imported-ed25519", reveal: true)
        XCTAssertEqual(item["kind"] as? String, "ssh-key")
        let hidden = try vault.ok(["show", "imported-ed25519"]).out
        XCTAssertFalse(hidden.contains("OPENSSH PRIVATE KEY"), hidden)
    }

    func testImportRefusesAWrongPassphraseADamagedFileAndSmallRSA() throws {
        let vault = try vault()
        let tools = OpenSSHTools(socket: "", work: vault.work)
        let protected = try tools.keygen("ed25519", comment: "protected", passphrase: "key passphrase")
        let wrong = try vault.writeWorkFile("wrong", "not the key passphrase\n")
        chmod(wrong, 0o600)
        let refused = try vault.run(["ssh", "import", "protected", protected, "--key-passphrase-file", wrong])
        assertExit(refused, 3)
        XCTAssertTrue(refused.err.contains("passphrase does not open"), refused.summary)
        let garbage = try vault.writeWorkFile("garbage", "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n")
        chmod(garbage, 0o600)
        assertExit(try vault.run(["ssh", "import", "garbage", garbage]), 5)
        // RSA under 2048 bits.
        let small = vault.work.appendingPathComponent("rsa-1024").path
        XCTAssertEqual(try ExternalTool.run("/usr/bin/ssh-keygen", ["-q", "-t", "rsa", "-b", "1024", "-N", "", "-f", small]).status, 0)
        let weak = try vault.run(["ssh", "import", "small", small])
        assertExit(weak, 5)
        XCTAssertTrue(weak.err.contains("1024 bits"), weak.summary)
        XCTAssertEqual(try vault.itemCount(), 0)
    }

    /// A key file ssh-keygen protected with a passphrase imports with it (asked on stdin here, as
    /// a terminal would be) and signs; the plaintext key is in no file of the test's tree.
    func testAPassphraseProtectedKeyFromSSHKeygenImportsAndSigns() throws {
        let vault = try vault()
        let tools = OpenSSHTools(socket: "", work: vault.work)
        for type in ["ed25519", "rsa"] {
            let path = try tools.keygen(type, comment: "protected-\(type)", passphrase: "key passphrase \(type)")
            let printed = try vault.ok(["ssh", "import", "protected-\(type)", path], stdin: Data("key passphrase \(type)\n".utf8)).line
            XCTAssertEqual(printed, try String(contentsOfFile: path + ".pub", encoding: .utf8).trimmingCharacters(in: .newlines))
        }
        let agent = try unlock(vault)
        for type in ["ed25519", "rsa"] {
            let verified = try agent.signAndVerify(publicKey: try publicKey(vault, "protected-\(type)"))
            XCTAssertEqual(verified.status, 0, "\(type): \(verified.outputText) \(verified.errorText)")
        }
        // The decrypted key, as Coffer stores it (--reveal), is in no file under the test's root.
        let revealed = try vault.ok(["show", "protected-ed25519", "--field", "private-key", "--reveal"]).out
        let body = try XCTUnwrap(revealed.split(separator: "\n").dropFirst().first.map(String.init))
        XCTAssertGreaterThan(body.count, 40)
        let files = FileManager.default.enumerator(atPath: vault.root.path)?.compactMap { $0 as? String } ?? []
        for name in files {
            let data = FileManager.default.contents(atPath: vault.root.appendingPathComponent(name).path) ?? Data()
            XCTAssertNil(data.range(of: Data(body.utf8)), "the decrypted key is in \(name)")
        }
    }

    func testSSHAddStoresKeysInTheVaultPassphraseProtectedToo() throws {
        let vault = try vault()
        let agent = try unlock(vault)
        XCTAssertEqual(try agent.listed().lines, ["The agent has no identities."])
        let plain = try agent.keygen("ecdsa", comment: "added-plain")
        let protected = try agent.keygen("ed25519", comment: "added-protected", passphrase: "key passphrase")
        XCTAssertEqual(try agent.run("ssh-add", [plain]).status, 0)
        let added = try agent.run("ssh-add", [protected], environment: try agent.askpass(printing: "key passphrase"))
        XCTAssertEqual(added.status, 0, added.errorText)
        // Kept as items titled by their comments; listed, and signing, as the vault's own.
        XCTAssertEqual(try agent.listed().lines.count, 2)
        let titles = try vault.list().compactMap { $0["title"] as? String }.sorted()
        XCTAssertEqual(titles, ["added-plain", "added-protected"])
        let line = try String(contentsOfFile: protected + ".pub", encoding: .utf8).trimmingCharacters(in: .newlines)
        XCTAssertEqual(try publicKey(vault, "added-protected"), line)
        XCTAssertEqual(try agent.signAndVerify(publicKey: line).status, 0)
        // Added again: not stored twice.
        XCTAssertEqual(try agent.run("ssh-add", [plain]).status, 0)
        XCTAssertEqual(try vault.itemCount(), 2)
        // The decrypted key never touched the disk: only the vault (encrypted) holds it.
        let privateKey = try String(contentsOfFile: plain, encoding: .utf8)
        let body = privateKey.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        XCTAssertFalse(try vault.vaultContents().range(of: Data(body.utf8)) != nil, "the key's text is in the vault file in the clear")
    }

    // MARK: Locked means no keys

    func testALockedAgentOffersNoKeysAndSignsNothing() throws {
        let vault = try vault()
        let line = try vault.ok(["ssh", "generate", "work", "--type", "ed25519"]).line
        let agent = try unlock(vault)
        XCTAssertEqual(try agent.listed().lines.count, 1)

        // ssh-add -x: the agent keeps running but offers and signs nothing until ssh-add -X.
        let lockPassphrase = try agent.askpass(printing: "lock words")
        XCTAssertEqual(try agent.run("ssh-add", ["-x"], environment: lockPassphrase).status, 0)
        XCTAssertEqual(try agent.listed().lines, ["The agent has no identities."])
        XCTAssertNotEqual(try agent.signAndVerify(publicKey: line).status, 0)
        XCTAssertNotEqual(try agent.run("ssh-add", ["-X"], environment: try agent.askpass(printing: "wrong words")).status, 0)
        XCTAssertEqual(try agent.listed().lines, ["The agent has no identities."])
        XCTAssertEqual(try agent.run("ssh-add", ["-X"], environment: lockPassphrase).status, 0)
        XCTAssertEqual(try agent.signAndVerify(publicKey: line).status, 0)

        // coffer lock: the agent and both sockets are gone; nothing answers, nothing signs.
        try vault.ok(["lock"])
        let listed = try agent.listed()
        XCTAssertNotEqual(listed.status, 0)
        XCTAssertEqual(listed.lines, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: agent.socket))
        XCTAssertNotEqual(try agent.signAndVerify(publicKey: line).status, 0)

        // Unlocked again: the same path (a shell's SSH_AUTH_SOCK) works again.
        let again = try unlock(vault)
        XCTAssertEqual(again.socket, agent.socket)
        XCTAssertEqual(try agent.signAndVerify(publicKey: line).status, 0)
    }

    func testAnIdleLockedAgentOffersNoKeys() throws {
        let vault = try vault()
        try vault.ok(["ssh", "generate", "work"])
        let agent = try unlock(vault, ["--idle", "2"])
        XCTAssertEqual(try agent.listed().lines.count, 1)
        // Listing is not a use: it does not keep the agent unlocked.
        let deadline = Date().addingTimeInterval(15)
        while FileManager.default.fileExists(atPath: agent.socket) && Date() < deadline {
            _ = try agent.listed()
            usleep(500_000)
        }
        let listed = try agent.listed()
        XCTAssertNotEqual(listed.status, 0, listed.lines.joined())
        XCTAssertEqual(listed.lines, [])
    }

    // MARK: A real ssh login

    func testSSHLogsIntoALoopbackServerWithTheAgentsKeyAndNotOnceLocked() throws {
        let vault = try vault()
        let line = try vault.ok(["ssh", "generate", "server", "--type", "rsa"]).line
        try vault.ok(["ssh", "generate", "other", "--type", "ed25519"])
        let server = try LoopbackSSHD(directory: vault.root.appendingPathComponent("sshd"), authorizedKeys: [line])
        sshd = server
        let agent = try unlock(vault)
        let session = try server.ssh(agent, "echo logged-in-through-coffer")
        XCTAssertEqual(session.status, 0, session.errorText)
        XCTAssertEqual(session.outputText, "logged-in-through-coffer\n")

        try vault.ok(["lock"])
        let refused = try server.ssh(agent, "echo should-not-run")
        XCTAssertEqual(refused.status, 255, refused.outputText)
        XCTAssertTrue(refused.errorText.contains("Permission denied"), refused.errorText)
        XCTAssertFalse(refused.outputText.contains("should-not-run"))
    }
}

/// Issue 32's rules for a key: limited to hosts (matched through `session-bind@openssh.com` and
/// known_hosts), and confirmed through `$SSH_ASKPASS`.
final class SSHKeyRuleTests: XCTestCase {
    private var testVault: TestVault?
    private var servers: [LoopbackSSHD] = []

    override func tearDown() {
        for server in servers { server.stop() }
        if let testVault {
            for pid in AgentProbe.processes(testVault) { kill(pid, SIGKILL) }
            testVault.destroy()
        }
        super.tearDown()
    }

    private func vault() throws -> TestVault {
        let vault = try TestVault.make()
        testVault = vault
        return vault
    }

    private func unlock(_ vault: TestVault, environment: [String: String] = [:]) throws -> OpenSSHTools {
        let result = try CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "unlock"],
                                           home: vault.root, environment: environment)
        assertOK(result)
        return OpenSSHTools(socket: try vault.ok(["ssh", "socket"]).line, work: vault.work)
    }

    /// Two servers with their own host keys, recorded in known_hosts (the agent's $HOME) as "alpha"
    /// and "beta"; each key limited to one of them. ssh to each is offered that server's key only
    /// (`ssh -v` lists what the agent offered) and logs in with it; unbound, `ssh-add -l` lists both
    /// but nothing signs with a limited key.
    func testAKeyLimitedToOneHostIsNotOfferedToAnother() throws {
        let vault = try vault()
        var lines: [String: String] = [:]
        for name in ["alpha", "beta"] {
            lines[name] = try vault.ok(["ssh", "generate", "\(name)-key", "--host", name]).line
        }
        let authorized = [try XCTUnwrap(lines["alpha"]), try XCTUnwrap(lines["beta"])]
        let alpha = try LoopbackSSHD(directory: vault.root.appendingPathComponent("sshd-alpha"), authorizedKeys: authorized)
        servers.append(alpha)
        let beta = try LoopbackSSHD(directory: vault.root.appendingPathComponent("sshd-beta"), authorizedKeys: authorized)
        servers.append(beta)
        let knownHosts = vault.root.appendingPathComponent(".ssh/known_hosts")
        try FileManager.default.createDirectory(at: knownHosts.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("alpha \(alpha.hostKey)\nbeta \(beta.hostKey)\n".utf8).write(to: knownHosts)
        let agent = try unlock(vault)

        for (name, server, other) in [("alpha", alpha, "beta"), ("beta", beta, "alpha")] {
            let session = try server.ssh(agent, "echo in-\(name)", options: [
                "-v", "-o", "HostKeyAlias=\(name)", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=\(knownHosts.path)",
            ])
            XCTAssertEqual(session.status, 0, session.errorText)
            XCTAssertEqual(session.outputText, "in-\(name)\n")
            XCTAssertTrue(session.errorText.contains("Will attempt key: \(name)-key"), session.errorText)
            XCTAssertFalse(session.errorText.contains("\(other)-key"), session.errorText)
            let fingerprint = try vault.ok(["show", "\(name)-key", "--field", "fingerprint"]).line
            XCTAssertTrue(server.log.contains("Accepted publickey for root") && server.log.contains(fingerprint), server.log)
        }
        // A host known by neither name: neither key.
        try Data("gamma \(alpha.hostKey)\n".utf8).write(to: knownHosts)
        let stranger = try alpha.ssh(agent, "echo nothing", options: [
            "-v", "-o", "HostKeyAlias=gamma", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=\(knownHosts.path)",
        ])
        XCTAssertEqual(stranger.status, 255, stranger.outputText)
        XCTAssertFalse(stranger.errorText.contains("Will attempt key: alpha-key"), stranger.errorText)

        XCTAssertEqual(try agent.listed().lines.count, 2)
        XCTAssertNotEqual(try agent.signAndVerify(publicKey: try XCTUnwrap(lines["alpha"])).status, 0)
        // Unlimited again (the field emptied): signs anywhere.
        try vault.ok(["edit", "alpha-key", "--field", "hosts="])
        XCTAssertEqual(try agent.signAndVerify(publicKey: try XCTUnwrap(lines["alpha"])).status, 0)
    }

    /// A key that asks: a refusing $SSH_ASKPASS makes the signature fail, an accepting one lets it
    /// through, none at all refuses; a key that does not ask never runs the program.
    func testAKeyThatAsksSignsOnlyWhenTheAskpassProgramAllows() throws {
        let vault = try vault()
        let careful = try vault.ok(["ssh", "generate", "careful", "--confirm"]).line
        let plain = try vault.ok(["ssh", "generate", "plain"]).line
        XCTAssertEqual(try vault.ok(["show", "careful", "--field", "confirm"]).line, "yes")
        let record = vault.work.appendingPathComponent("asked").path
        func program(_ name: String, exit status: Int) throws -> String {
            let path = vault.work.appendingPathComponent(name).path
            try Data("#!/bin/sh\nprintf '%s|%s\\n' \"$SSH_ASKPASS_PROMPT\" \"$1\" >> \(record)\nexit \(status)\n".utf8)
                .write(to: URL(fileURLWithPath: path))
            chmod(path, 0o700)
            return path
        }
        var agent = try unlock(vault, environment: ["SSH_ASKPASS": try program("refuse", exit: 1)])
        XCTAssertNotEqual(try agent.signAndVerify(publicKey: careful).status, 0)
        XCTAssertEqual(try agent.signAndVerify(publicKey: plain).status, 0)
        let asked = try String(contentsOfFile: record, encoding: .utf8)
        XCTAssertEqual(asked.split(separator: "\n").count, 1, asked)
        XCTAssertTrue(asked.hasPrefix("confirm|Allow use of the SSH key “careful” (SHA256:"), asked)
        try vault.ok(["lock"])

        agent = try unlock(vault, environment: ["SSH_ASKPASS": try program("allow", exit: 0)])
        XCTAssertEqual(try agent.signAndVerify(publicKey: careful).status, 0)
        try vault.ok(["lock"])

        agent = try unlock(vault)
        XCTAssertNotEqual(try agent.signAndVerify(publicKey: careful).status, 0)
        XCTAssertEqual(try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").count, 2)
    }

    /// "Confirm each use" takes yes or no: `confirm=maybe` was stored (exit 0) and the agent did
    /// not confirm; now it is refused, naming the spellings, and `confirm=y` stores "yes", which
    /// the agent confirms for (a refusing $SSH_ASKPASS fails the signature).
    func testConfirmEachUseTakesOnlyYesOrNoOnTheCommandLine() throws {
        let vault = try vault()
        let line = try vault.ok(["ssh", "generate", "doubtful"]).line
        assertError(try vault.run(["edit", "doubtful", "--field", "confirm=maybe"]), 2,
                    mentions: ["Confirm each use", "yes, y, true, on, 1", "no, n, false, off, 0", "maybe"])
        try vault.ok(["edit", "doubtful", "--field", "confirm=y"])
        XCTAssertEqual(try vault.ok(["show", "doubtful", "--field", "confirm"]).line, "yes")
        let refuse = vault.work.appendingPathComponent("refuse").path
        try Data("#!/bin/sh\nexit 1\n".utf8).write(to: URL(fileURLWithPath: refuse))
        chmod(refuse, 0o700)
        let agent = try unlock(vault, environment: ["SSH_ASKPASS": refuse])
        XCTAssertNotEqual(try agent.signAndVerify(publicKey: line).status, 0, "signed without asking")
        try vault.ok(["lock"])
        try vault.ok(["edit", "doubtful", "--field", "confirm=no"])
        assertExit(try vault.run(["show", "doubtful", "--field", "confirm"]), 2)
    }
}
