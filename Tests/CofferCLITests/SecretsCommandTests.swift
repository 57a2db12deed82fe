import CofferTestSupport
import Foundation
import XCTest

/// `coffer read`, `coffer run` and `coffer inject` with the real binary and real programs (`sh`,
/// `touch`), each through an agent and with the passphrase, each beside another process adding
/// items to the vault.
final class SecretsCommandTests: XCTestCase {
    private let githubPassword = "gh p4ss 'with' \"quotes\""
    private let mailPassword = "m41l-secret-value-7f3a"
    private let token = "tok-\(UUID().uuidString)"

    /// A vault with a GitHub login (a hidden custom field too), a Mail login and a card, in
    /// `setting`, with a writer beside it, for `body`; the agent and the vault go afterwards.
    private func scenario(_ setting: SecretsSetting, file: StaticString = #filePath, line: UInt = #line,
                          _ body: (TestVault, [String]) throws -> Void) throws {
        let vault = try TestVault.make(file: file, line: line)
        defer {
            for pid in AgentProbe.processes(vault) { kill(pid, SIGKILL) }
            vault.destroy()
        }
        try vault.add("GitHub", ["--username", "octocat", "--password", githubPassword, "--hidden-field", "API token=\(token)"])
        try vault.add("Mail", ["--username", "ann", "--password", mailPassword])
        try vault.ok(["add", "--kind", "card", "--title", "Visa", "--field", "Number=-"], stdin: utf8("4111111111111111\n"))
        if setting == .agent { try vault.ok(["unlock"], file: file, line: line) }
        let writer = BesideWriter(vault)
        try body(vault, setting.options(vault))
        XCTAssertGreaterThan(writer.stop(), 0, "the writer beside never added an item", file: file, line: line)
    }

    private func coffer(_ vault: TestVault, _ options: [String], _ arguments: [String], environment: [String: String] = [:],
                        file: StaticString = #filePath, line: UInt = #line) throws -> CofferResult {
        try CofferProcess.run(options + arguments, home: vault.root, environment: environment, file: file, line: line)
    }

    func testReadPrintsAnyFieldOfAnyItem() throws {
        for setting in SecretsSetting.allCases {
            try scenario(setting) { vault, options in
                let reads = [("coffer://github/password", githubPassword), ("coffer://GitHub/username", "octocat"),
                             ("coffer://git/API token", token), ("coffer://visa/number", "4111111111111111"),
                             ("coffer://mail/password", mailPassword)]
                for (reference, expected) in reads {
                    let result = try coffer(vault, options, ["read", reference])
                    assertOK(result)
                    XCTAssertEqual(result.out, expected + "\n", "\(setting) \(reference)")
                }
                XCTAssertEqual(try coffer(vault, options, ["read", "--no-newline", "coffer://mail/password"]).out, mailPassword)
                assertError(try coffer(vault, options, ["read", "coffer://nothing-here/password"]), 4, mentions: ["nothing-here"])
                assertError(try coffer(vault, options, ["read", "coffer://mail/shoe-size"]), 2, mentions: ["shoe-size"])
                assertError(try coffer(vault, options, ["read", "coffer://mail"]), 2, mentions: ["coffer://NAME/FIELD"])
                assertError(try coffer(vault, options, ["read", "mail/password"]), 2, mentions: ["coffer://NAME/FIELD"])
            }
        }
    }

    func testRunGivesTheProgramItsValuesFromTheEnvironmentAndAnEnvFile() throws {
        for setting in SecretsSetting.allCases {
            try scenario(setting) { vault, options in
                let envFile = try vault.writeWorkFile("app.env", """
                    # the app's settings
                    export MAIL_PASSWORD=coffer://mail/password
                    API_TOKEN="coffer://github/API token"   # a label with a space is quoted
                    PLAIN='not a $reference'
                    GITHUB_USER=coffer://github/username

                    """)
                let result = try coffer(vault, options, [
                    "run", "--env-file", envFile, "--", "/bin/sh", "-c",
                    #"printf '%s|%s|%s|%s|%s|%s' "$GITHUB_PASSWORD" "$MAIL_PASSWORD" "$API_TOKEN" "$PLAIN" "$GITHUB_USER" "$NOTE""#,
                ], environment: ["GITHUB_PASSWORD": "coffer://github/password", "NOTE": "see coffer://mail/password"])
                assertOK(result)
                XCTAssertEqual(result.out, [githubPassword, mailPassword, token, "not a $reference", "octocat",
                                            "see coffer://mail/password"].joined(separator: "|"), "\(setting)")
                // The environment's reference is replaced by the file's when both set a variable.
                let overridden = try coffer(vault, options, ["run", "--env-file", envFile, "--", "/bin/sh", "-c",
                                                             #"printf %s "$MAIL_PASSWORD""#],
                                            environment: ["MAIL_PASSWORD": "coffer://github/password"])
                XCTAssertEqual(overridden.out, mailPassword)
            }
        }
    }

    func testMaskConcealsEveryValueEvenSplitAcrossReads() throws {
        for setting in SecretsSetting.allCases {
            try scenario(setting) { vault, options in
                // Each value is written in two parts with a pause between (two reads for coffer), on
                // stdout and stderr, then whole, with text around it that must pass through.
                let script = #"""
                for v in "$A" "$B" "$C"; do
                  head=${v%????????}; tail=${v#"$head"}
                  printf 'x%s' "$head"; sleep 0.2; printf '%sy\n' "$tail"
                  printf 'e%s' "$head" >&2; sleep 0.2; printf '%sf\n' "$tail" >&2
                done
                printf 'whole:%s:%s:%s\n' "$A" "$B" "$C"
                """#
                let result = try coffer(vault, options, ["run", "--mask", "--", "/bin/sh", "-c", script], environment: [
                    "A": "coffer://github/password", "B": "coffer://mail/password", "C": "coffer://github/API token",
                ])
                assertOK(result)
                for secret in [githubPassword, mailPassword, token] {
                    XCTAssertFalse(result.out.contains(secret), "\(setting): stdout shows a value: \(result.out)")
                    XCTAssertFalse(result.err.contains(secret), "\(setting): stderr shows a value: \(result.err)")
                    // Not even the parts written alone.
                    XCTAssertFalse(result.out.contains(String(secret.suffix(8))), "\(setting): \(result.out)")
                }
                let concealed = "<concealed by coffer>"
                XCTAssertEqual(result.out, String(repeating: "x\(concealed)y\n", count: 3) + "whole:\(concealed):\(concealed):\(concealed)\n")
                XCTAssertEqual(result.err, String(repeating: "e\(concealed)f\n", count: 3))
            }
        }
    }

    func testTheProgramsExitStatusIsCoffers() throws {
        for setting in SecretsSetting.allCases {
            try scenario(setting) { vault, options in
                let environment = ["MAIL": "coffer://mail/password"]
                assertExit(try coffer(vault, options, ["run", "--", "/bin/sh", "-c", "exit 7"], environment: environment), 7)
                assertExit(try coffer(vault, options, ["run", "--mask", "--", "/bin/sh", "-c", "exit 9"], environment: environment), 9)
                assertExit(try coffer(vault, options, ["run", "--mask", "--", "/bin/sh", "-c", "kill -TERM $$"],
                                      environment: environment), 128 + SIGTERM)
                assertOK(try coffer(vault, options, ["run", "--", "true"], environment: environment))
                // A SIGTERM sent to coffer --mask reaches the program, whose status coffer then takes.
                let waiting = try RunningCoffer(options + ["run", "--mask", "--", "/bin/sh", "-c",
                                                           "trap 'echo TERM >&2; exit 5' TERM; echo READY >&2; while :; do sleep 0.1; done"],
                                                home: vault.root, environment: environment.merging(["XDG_RUNTIME_DIR": vault.root.path]) { _, own in own })
                waiting.waitFor("READY")
                kill(waiting.pid, SIGTERM)
                let ended = waiting.finish(timeout: 20)
                assertExit(ended, 5)
                XCTAssertTrue(ended.err.contains("TERM"), ended.summary)
                let missing = try coffer(vault, options, ["run", "--", "no-such-program-\(UUID().uuidString.prefix(6))"])
                assertError(missing, 127, mentions: ["command not found"])
            }
        }
    }

    func testAnUnresolvableReferenceStartsNothing() throws {
        for setting in SecretsSetting.allCases {
            try scenario(setting) { vault, options in
                try vault.add("Mail backup", ["--password", "other"])
                let marker = vault.work.appendingPathComponent("ran-\(UUID().uuidString)").path
                let program = ["--", "/usr/bin/touch", marker]
                let missing = try coffer(vault, options, ["run"] + program,
                                         environment: ["OK": "coffer://github/password", "DB_PASSWORD": "coffer://no-such-db/password"])
                assertError(missing, 4, mentions: ["DB_PASSWORD", "no-such-db"])
                let ambiguous = try coffer(vault, options, ["run"] + program, environment: ["SMTP": "coffer://mai/password"])
                assertExit(ambiguous, 6)
                XCTAssertTrue(ambiguous.err.hasPrefix("The variable SMTP: "), ambiguous.summary)
                assertError(try coffer(vault, options, ["run"] + program, environment: ["X": "coffer://github/nope"]), 2,
                            mentions: ["X", "nope"])
                assertError(try coffer(vault, options, ["run"] + program, environment: ["Y": "coffer://github"]), 2,
                            mentions: ["Y", "coffer://NAME/FIELD"])
                let envFile = try vault.writeWorkFile("missing.env", "TOKEN=coffer://gone/password\n")
                assertError(try coffer(vault, options, ["run", "--env-file", envFile] + program), 4, mentions: ["TOKEN"])
                XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "\(setting): the program ran")
                // The same command with the references fixed does run it: the check can fail.
                assertOK(try coffer(vault, options, ["run"] + program, environment: ["OK": "coffer://github/password"]))
                XCTAssertTrue(FileManager.default.fileExists(atPath: marker))
            }
        }
    }

    func testTheEnvFileIsReadStrictly() throws {
        let vault = try TestVault.make()
        defer { vault.destroy() }
        let cases: [(String, String)] = [
            ("A=1\nB=two words\n", "line 2"), ("A=1\n\nA=2\n", "line 3"), ("A = 1\n", "line 1"), ("1A=x\n", "line 1"),
            ("A=\"open\n", "line 1"), ("A='x'y\n", "line 1"), ("A=\"\\q\"\n", "line 1"), ("A=${HOME}\n", "line 1"),
            ("OK=1\nA=\u{1B}[31m\n", "line 2"),
        ]
        for (text, mention) in cases {
            let path = try vault.writeWorkFile("bad.env", text)
            let result = try vault.run(["run", "--env-file", path, "--", "true"])
            assertError(result, 2, mentions: ["bad.env", mention])
        }
        let large = try vault.writeWorkFile("large.env", Data(repeating: 0x41, count: 2 << 20))
        assertError(try vault.run(["run", "--env-file", large, "--", "true"]), 2, mentions: ["over the limit"])
        assertError(try vault.run(["run", "--env-file", "/dev/zero", "--", "true"]), 2, mentions: ["/dev/zero"])
    }

    func testInjectWritesAPrivateFileAndNeverOverwritesWithoutForce() throws {
        for setting in SecretsSetting.allCases {
            try scenario(setting) { vault, options in
                let template = try vault.writeWorkFile("config.tmpl", """
                    user: {{ coffer://github/username }}
                    password: {{coffer://github/password}}
                    mail: "{{ coffer://Mail/password }}"
                    other: {{ .Values.keep }} and {{ not a reference }}

                    """)
                let output = vault.work.appendingPathComponent("config.yml").path
                assertOK(try coffer(vault, options, ["inject", "--in", template, "--out", output]))
                let expected = """
                    user: octocat
                    password: \(githubPassword)
                    mail: "\(mailPassword)"
                    other: {{ .Values.keep }} and {{ not a reference }}

                    """
                XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), expected)
                XCTAssertEqual(try permissions(output), 0o600)
                // Never over an existing file: the old contents stay, byte for byte.
                try Data("old".utf8).write(to: URL(fileURLWithPath: output))
                chmod(output, 0o644)
                assertError(try coffer(vault, options, ["inject", "--in", template, "--out", output]), 1, mentions: ["--force"])
                XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "old")
                // Nor through a symlink planted at the name.
                let target = vault.work.appendingPathComponent("elsewhere").path
                let link = vault.work.appendingPathComponent("link.yml").path
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
                assertError(try coffer(vault, options, ["inject", "--in", template, "--out", link]), 1, mentions: ["--force"])
                XCTAssertFalse(FileManager.default.fileExists(atPath: target))
                // With --force: replaced, private again.
                assertOK(try coffer(vault, options, ["inject", "--in", template, "--out", output, "--force"]))
                XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), expected)
                XCTAssertEqual(try permissions(output), 0o600)
                // A reference to nothing writes nothing.
                let broken = try vault.writeWorkFile("broken.tmpl", "a: {{ coffer://github/password }}\nb: {{ coffer://gone/password }}\n")
                let brokenOut = vault.work.appendingPathComponent("broken.yml").path
                assertError(try coffer(vault, options, ["inject", "--in", broken, "--out", brokenOut]), 4, mentions: ["gone"])
                XCTAssertFalse(FileManager.default.fileExists(atPath: brokenOut))
                let unclosed = try vault.writeWorkFile("unclosed.tmpl", "a: 1\nb: {{ coffer://github/password\n")
                assertError(try coffer(vault, options, ["inject", "--in", unclosed]), 2, mentions: ["line 2"])
                // Without --out: stdout.
                XCTAssertEqual(try coffer(vault, options, ["inject", "--in", template]).out, expected)
                // No leftover temporary files beside the output.
                let names = try FileManager.default.contentsOfDirectory(atPath: vault.work.path)
                XCTAssertFalse(names.contains { $0.contains(".coffer-") }, "\(names)")
            }
        }
    }

    func testTheManualAndCompletionsHaveTheCommands() throws {
        let manual = try CofferProcess.run(["manual"])
        assertOK(manual)
        for command in ["read", "run", "inject", "git-credential"] {
            XCTAssertTrue(manual.out.contains(".SS \"coffer \(command)\""), "no section for \(command)")
        }
        for option in ["\\-\\-env\\-file", "\\-\\-mask", "\\-\\-force", "\\-\\-store", "\\-\\-no\\-newline", "coffer://NAME/FIELD"] {
            XCTAssertTrue(manual.out.contains(option), "the manual lacks \(option)")
        }
        for shell in ["bash", "zsh", "fish"] {
            let script = try CofferProcess.run(["--generate-completion-script", shell])
            assertOK(script)
            for word in ["inject", "git-credential", "env-file", "mask"] {
                XCTAssertTrue(script.out.contains(word), "\(shell) completion lacks \(word)")
            }
        }
    }

    /// `run --help` says what --mask cannot see: the program's own writes to /dev/tty, and a value
    /// split between stdout and stderr (each pipe is masked alone). It claimed more than it does.
    func testRunHelpSaysWhatMaskCannotSee() throws {
        let help = try CofferProcess.run(["run", "--help"])
        assertOK(help)
        let text = help.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(text.contains("/dev/tty"), help.out)
        XCTAssertTrue(text.contains("a value split between stdout and stderr"), help.out)
    }

    /// In a terminal (tmux): the program has the terminal on stdin and stdout, Ctrl-C reaches it
    /// (no signal left blocked or ignored), and with --mask coffer waits for it and passes its status on.
    func testTheProgramKeepsTheTerminalAndGetsCtrlC() throws {
        XCTAssertTrue(Tmux.isInstalled, "tmux is needed (make deps installs it)")
        for setting in SecretsSetting.allCases {
            try scenario(setting) { vault, options in
                let binary = try CofferBinary.require()
                let program = #"test -t 0 && test -t 1 && echo "TTY ${#M}"; grep -E "^Sig(Blk|Ign)" /proc/self/status; "#
                    + #"trap 'echo INTERRUPTED; exit 3' INT; echo READY; while :; do sleep 0.1; done"#
                for mask in [[], ["--mask"]] {
                    let quoted = (options + ["run"] + mask + ["--", "/bin/sh", "-c", program]).map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
                    let command = "sed -n 's/^SigIgn:/BaseIgn:/p' /proc/self/status; env LANG=C.UTF-8 HOME='\(vault.root.path)' XDG_RUNTIME_DIR='\(vault.root.path)' "
                        + "M=coffer://mail/password '\(binary)' \(quoted.joined(separator: " ")) </dev/tty; echo \"EXIT=$?\"; sleep 600"
                    let tmux = try Tmux(command: command, width: 100, height: 20)
                    XCTAssertTrue(tmux.wait(for: "READY", timeout: 20).found, "\(setting) \(mask): \(tmux.screen)")
                    let screen = tmux.screen
                    XCTAssertEqual(mask.isEmpty, screen.contains("TTY \(mailPassword.count)"), "\(setting) \(mask): \(screen)")
                    // Signals 1–31 as the terminal's own commands have them (tmux ignores SIGTTIN and
                    // SIGTTOU; glibc's spawn leaves its internal 32 and 33 ignored in any child).
                    func signals(_ name: String) -> UInt64? {
                        screen.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                            .flatMap { UInt64($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16) }
                            .map { $0 & 0x7FFF_FFFF }
                    }
                    XCTAssertEqual(signals("SigBlk"), 0, "\(setting) \(mask): \(screen)")
                    XCTAssertNotNil(signals("BaseIgn"), screen)
                    XCTAssertEqual(signals("SigIgn"), signals("BaseIgn"), "\(setting) \(mask): \(screen)")
                    try tmux.send("C-c")
                    let ended = tmux.wait(for: "EXIT=", timeout: 10)
                    XCTAssertTrue(ended.screen.contains("INTERRUPTED") && ended.screen.contains("EXIT=3"), "\(setting) \(mask): \(ended.screen)")
                }
            }
        }
    }
}
