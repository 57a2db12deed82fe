import CofferTestSupport
import Foundation
import XCTest

/// `coffer git-credential` driven by the real git: `git credential fill|approve|reject` and a
/// `git clone` over HTTP from git-http-backend behind basic auth (`Resources/scripts/git-http-server.py`),
/// through `credential.helper coffer` (the `git-credential-coffer` script `make install` installs),
/// with an agent and with the passphrase file, beside another process writing the vault.
final class GitCredentialTests: XCTestCase {
    private let git = "/usr/bin/git"

    /// A vault in `setting` and the environment git runs in: a private HOME with no configuration,
    /// no prompts, `coffer` and `git-credential-coffer` on PATH.
    private struct Setup {
        var vault: TestVault
        var environment: [String: String]
        var helper: String
    }

    private func setUp(_ setting: SecretsSetting, _ logins: [[String]], file: StaticString = #filePath, line: UInt = #line,
                       _ body: (Setup) throws -> Void) throws {
        let vault = try TestVault.make(file: file, line: line)
        defer {
            for pid in AgentProbe.processes(vault) { kill(pid, SIGKILL) }
            vault.destroy()
        }
        for login in logins { try vault.add(login[0], Array(login.dropFirst()), file: file, line: line) }
        if setting == .agent { try vault.ok(["unlock"], file: file, line: line) }
        let bin = vault.root.appendingPathComponent("bin")
        let home = vault.root.appendingPathComponent("git-home")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("coffer").path,
                                                   withDestinationPath: try CofferBinary.require())
        try FileManager.default.copyItem(atPath: PackageRoot.script("git-credential-coffer"),
                                         toPath: bin.appendingPathComponent("git-credential-coffer").path)
        let environment = [
            "PATH": "\(bin.path):/usr/bin:/bin", "HOME": home.path, "XDG_CONFIG_HOME": home.path, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "DISPLAY": "",
            "COFFER_VAULT": vault.path, "XDG_RUNTIME_DIR": vault.root.path, "XDG_DATA_HOME": vault.root.appendingPathComponent("data").path,
            "LANG": "C.UTF-8", "TERM": "dumb",
        ]
        let helper = setting == .agent ? "coffer" : "coffer --passphrase-file \(vault.passphraseFile)"
        let writer = BesideWriter(vault)
        try body(Setup(vault: vault, environment: environment, helper: helper))
        XCTAssertGreaterThan(writer.stop(), 0, "the writer beside never added an item", file: file, line: line)
    }

    /// git in the vault's work directory, with the setup's environment over the test's.
    private func runGit(_ setup: Setup, _ arguments: [String], stdin: String = "", config: [String] = []) throws -> CofferResult {
        let options = ["-C", setup.vault.work.path] + config.flatMap { ["-c", $0] }
        let result = try ExternalTool.run(git, options + arguments, stdin: Data(stdin.utf8), environment: setup.environment)
        return CofferResult(arguments: [git] + options + arguments, status: result.status, stdout: result.output,
                            stderr: Data(result.errorText.utf8))
    }

    private func fill(_ setup: Setup, _ request: String, helper: String? = nil, config: [String] = []) throws -> CofferResult {
        try runGit(setup, ["credential", "fill"], stdin: request + "\n",
                   config: ["credential.helper=\(helper ?? setup.helper)", "credential.useHttpPath=true"] + config)
    }

    func testFillAnswersOnlyForTheLoginsOwnProtocolHostAndPath() throws {
        let logins = [
            ["Example", "--username", "ann", "--password", "pw-ann-1", "--origin", "https://git.example.org"],
            ["Team", "--username", "bob", "--password", "pw-bob-2", "--origin", "https://git.example.org/team"],
            ["Broken", "--username", "eve", "--password", "a\nhost=evil.org", "--origin", "https://broken.example.org"],
            ["Off", "--username", "old", "--password", "pw-old", "--origin", "https://off.example.org", "--disabled"],
            ["Dup one", "--username", "x", "--password", "pw-x", "--origin", "https://dup.example.org"],
            ["Dup two", "--username", "y", "--password", "pw-y", "--origin", "dup.example.org"],
        ]
        for setting in SecretsSetting.allCases {
            try setUp(setting, logins) { setup in
                let ann = try fill(setup, "protocol=https\nhost=git.example.org\n")
                assertOK(ann)
                XCTAssertEqual(ann.out, "protocol=https\nhost=git.example.org\nusername=ann\npassword=pw-ann-1\n", "\(setting)")
                // With the path (credential.useHttpPath), the login of the team's origin is closer.
                let bob = try fill(setup, "protocol=https\nhost=git.example.org\npath=team/repo.git\n")
                XCTAssertTrue(bob.out.hasSuffix("username=bob\npassword=pw-bob-2\n"), bob.summary)
                let named = try fill(setup, "protocol=https\nhost=git.example.org\npath=team/repo.git\nusername=ann\n")
                XCTAssertTrue(named.out.hasSuffix("username=ann\npassword=pw-ann-1\n"), named.summary)
                // Nothing for another protocol, a look-alike host, another port or a path beside the team's,
                // nor from a login that is disabled or whose password would break the protocol:
                // git then finds no password and, with prompts off, fails.
                for request in ["protocol=http\nhost=git.example.org\n", "protocol=https\nhost=git.example.org.evil.com\n",
                                "protocol=https\nhost=evil-git.example.org\n", "protocol=https\nhost=git.example.org:8443\n",
                                "protocol=https\nhost=off.example.org\n", "protocol=https\nhost=broken.example.org\n",
                                "protocol=https\nhost=git.example.org\nusername=mallory\n"] {
                    let result = try fill(setup, request)
                    XCTAssertNotEqual(result.status, 0, "\(setting): \(result.summary)")
                    XCTAssertFalse(result.out.contains("password="), "\(setting): \(result.summary)")
                }
                let broken = try fill(setup, "protocol=https\nhost=broken.example.org\n")
                XCTAssertTrue(broken.err.contains("line break"), broken.summary)
                // Two different logins as close: no answer, and why; a username picks one.
                let tie = try fill(setup, "protocol=https\nhost=dup.example.org\n")
                XCTAssertFalse(tie.out.contains("password="), tie.summary)
                XCTAssertTrue(tie.err.contains("2 logins match"), tie.summary)
                XCTAssertTrue(try fill(setup, "protocol=https\nhost=dup.example.org\nusername=y\n").out.hasSuffix("password=pw-y\n"))
                // A username git gives picks among the logins serving the path.
                let team = try fill(setup, "protocol=https\nhost=git.example.org\npath=team/x\nusername=bob\n")
                XCTAssertTrue(team.out.hasSuffix("password=pw-bob-2\n"), team.summary)
            }
        }
    }

    func testStoreAndEraseChangeTheVaultOnlyWithStore() throws {
        for setting in SecretsSetting.allCases {
            try setUp(setting, [["Mine", "--username", "me", "--password", "kept", "--origin", "https://mine.example.org"]]) { setup in
                let stored = "protocol=https\nhost=new.example.org\nusername=neo\npassword=n3w-pass\n"
                assertOK(try runGit(setup, ["credential", "approve"], stdin: stored + "\n", config: ["credential.helper=\(setup.helper)"]))
                XCTAssertNotEqual(try fill(setup, "protocol=https\nhost=new.example.org\n").status, 0, "stored without --store")
                let storing = "coffer --store" + setup.helper.dropFirst("coffer".count)
                assertOK(try runGit(setup, ["credential", "approve"], stdin: stored + "\n", config: ["credential.helper=\(storing)"]))
                let found = try fill(setup, "protocol=https\nhost=new.example.org\n")
                XCTAssertTrue(found.out.hasSuffix("username=neo\npassword=n3w-pass\n"), found.summary)
                // A changed password updates the login it stored (one login, the new password).
                let changed = stored.replacingOccurrences(of: "n3w-pass", with: "n3wer-pass")
                assertOK(try runGit(setup, ["credential", "approve"], stdin: changed + "\n", config: ["credential.helper=\(storing)"]))
                let listed = try setup.vault.run(["list", "--json", "--tag", "git-credential"], unlock: setting == .passphrase)
                assertOK(listed)
                XCTAssertEqual(try listed.jsonArray().count, 1, listed.summary)
                XCTAssertTrue(try fill(setup, "protocol=https\nhost=new.example.org\n").out.hasSuffix("password=n3wer-pass\n"))
                // Erase: not without --store, not with another password, not a login the user made.
                let reject = changed + "\n"
                assertOK(try runGit(setup, ["credential", "reject"], stdin: reject, config: ["credential.helper=\(setup.helper)"]))
                XCTAssertEqual(try fill(setup, "protocol=https\nhost=new.example.org\n").status, 0)
                assertOK(try runGit(setup, ["credential", "reject"], stdin: stored + "\n", config: ["credential.helper=\(storing)"]))
                XCTAssertEqual(try fill(setup, "protocol=https\nhost=new.example.org\n").status, 0)
                assertOK(try runGit(setup, ["credential", "reject"], stdin: "protocol=https\nhost=mine.example.org\nusername=me\npassword=kept\n\n",
                                    config: ["credential.helper=\(storing)"]))
                XCTAssertEqual(try fill(setup, "protocol=https\nhost=mine.example.org\n").status, 0)
                assertOK(try runGit(setup, ["credential", "reject"], stdin: reject, config: ["credential.helper=\(storing)"]))
                XCTAssertNotEqual(try fill(setup, "protocol=https\nhost=new.example.org\n").status, 0, "erased with --store")
                let trash = try setup.vault.run(["trash", "--json"], unlock: setting == .passphrase)
                XCTAssertEqual(try trash.jsonArray().compactMap { $0["title"] as? String }, ["new.example.org"],
                               "erased to the trash (issue 43): \(trash.summary)")
            }
        }
    }

    func testCloneOverHTTPNeedsThePasswordAndGetsItFromCofferWithoutAPrompt() throws {
        let password = "clone-\(UUID().uuidString.prefix(12))"
        for setting in SecretsSetting.allCases {
            let server = try GitHTTPServer(user: "ann", password: password)
            defer { server.stop() }
            let origin = "http://127.0.0.1:\(server.port)"
            try setUp(setting, [["Git server", "--username", "ann", "--password", password, "--origin", origin],
                                ["Same host, https", "--username", "ann", "--password", "wrong", "--origin", "https://127.0.0.1:\(server.port)"]]) { setup in
                let identity = ["user.name=Test", "user.email=test@example.org", "init.defaultBranch=main"]
                let source = setup.vault.work.appendingPathComponent("source").path
                assertOK(try runGit(setup, ["init", "-q", source], config: identity))
                assertOK(try runGit(setup, ["-C", source, "commit", "-q", "--allow-empty", "-m", "first of \(setting)"], config: identity))
                assertOK(try runGit(setup, ["clone", "-q", "--bare", source, server.root.appendingPathComponent("project.git").path]))
                let url = "\(origin)/project.git"
                // Without the helper the server refuses (and git may not prompt).
                let refused = try runGit(setup, ["clone", "-q", url, "without"])
                XCTAssertNotEqual(refused.status, 0, refused.summary)
                let cloned = try runGit(setup, ["clone", "-q", url, "with"], config: ["credential.helper=\(setup.helper)"])
                assertOK(cloned)
                let log = try runGit(setup, ["-C", "with", "log", "--format=%s"])
                XCTAssertEqual(log.out, "first of \(setting)\n", log.summary)
            }
        }
    }
}

/// `Resources/scripts/git-http-server.py` on a loopback port: repositories under `root`, basic auth.
private final class GitHTTPServer {
    let root: URL
    let port: Int
    private let process = Process()

    init(user: String, password: String) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("git-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [PackageRoot.script("git-http-server.py"), root.path, user, password]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("\n"), Date() < deadline, process.isRunning {
            text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw ServerFailure(output: text)
        }
        self.port = port
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: root)
    }

    struct ServerFailure: Error { var output: String }
}
