import ArgumentParser
import CofferAgent
import CofferCore
import CofferSystem
import CofferTUI
import Foundation

struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Keep the vault unlocked in an agent, so commands ask for no passphrase until it locks.",
        discussion: "The agent locks after --idle seconds without a command (each command restarts the clock), on "
            + "`coffer lock`, when you log out (SIGHUP), or when another device sends a lock. Its keys never leave it.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Lock after this many seconds without a command (0: only on `coffer lock`).") var idle: Double = 900
    @Option(help: ArgumentHelp("The agent syncs every this many seconds when the vault has an account (0: never), "
        + "so a lock sent from another device reaches it.")) var syncEvery: Double = 60

    func validate() throws {
        for (name, value) in [("--idle", idle), ("--sync-every", syncEvery)] where !(value >= 0 && value.isFinite) {
            throw ValidationError("\(name) must be a number of seconds, 0 or more.")
        }
    }

    func run() async throws {
        let path = global.vaultPath
        _ = try Vault.open(at: path)
        let paths = AgentPaths.forVault(path)
        try paths.prepareDirectory()
        if let agent = try AgentVault.connect(vaultPath: path) {
            try agent.renew(idle: idle)
            Output.line("Already unlocked by the agent (pid \(agent.status.pid)); \(Self.locking(idle))")
            Output.line(Self.sshHint(paths))
            return
        }
        var passphrase = try global.passphraseInput.read(prompt: "Passphrase for \(path): ")
            .withUnsafeBytes { Data($0) + Data([0x0A]) }
        defer { wipe(&passphrase) }
        let pid = try AgentLauncher.start(paths, arguments: ["--idle", String(idle), "--sync-every", String(syncEvery)],
                                          passphrase: passphrase)
        Output.line("Unlocked: the agent (pid \(pid)) holds \(path); \(Self.locking(idle))")
        Output.line(Self.sshHint(paths))
    }

    /// How to let ssh use the vault's SSH keys (`coffer ssh socket` prints the path alone).
    static func sshHint(_ paths: AgentPaths) -> String {
        "SSH keys: export SSH_AUTH_SOCK=\(ShellQuote.word(paths.sshSocket))"
    }

    static func locking(_ idle: Double) -> String {
        idle > 0 ? "it locks after \(Format.duration(idle)) without a command, or on `coffer lock`."
            : "it locks on `coffer lock`."
    }
}

struct LockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Lock the vault's agent: it wipes its keys and exits.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let path = global.vaultPath
        guard let agent = try AgentVault.connect(vaultPath: path) else {
            Output.line("No agent held \(path) unlocked.")
            return
        }
        try agent.lock()
        Output.line("Locked: the agent (pid \(agent.status.pid)) wiped its keys.")
    }
}

/// `coffer agent --idle S`: the agent itself, started by `coffer unlock` with the passphrase on
/// stdin. It says "ready" on stdout once it listens, then leaves the terminal and serves.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "agent", shouldDisplay: false)

    @OptionGroup var global: GlobalOptions
    @Option var idle: Double = 900
    @Option var syncEvery: Double = 60

    func run() async throws {
        setsid()
        chdir("/")
        // Before the unlock reads the keystore: see `ProcessMemory`.
        ProcessMemory.fixMappingThreshold(bytes: 128 << 10)
        let vault = try Vault.open(at: global.vaultPath)
        try await vault.unlock(passphrase: try StandardInputLines.shared.next())
        let paths = AgentPaths.forVault(global.vaultPath)
        try paths.prepareDirectory()
        let server = try await AgentServer(vault: vault, socketPath: paths.socket, idleLimit: idle, syncInterval: syncEvery,
                                           readTimeout: AgentServer.readTimeout(), sshSocketPath: paths.sshSocket)
        Output.rawLine(AgentLauncher.ready)
        fflush(nil)
        AgentLauncher.detachOutput()
        await server.run(lockingOn: [SIGTERM, SIGHUP, SIGINT])
    }
}

/// Starts an agent for `coffer unlock` and waits until it listens or fails.
enum AgentLauncher {
    static let ready = "ready"

    /// The agent's pid once it listens; its own error (wrong passphrase: exit 3) otherwise.
    static func start(_ paths: AgentPaths, arguments: [String], passphrase: Data) throws -> pid_t {
        // Two `coffer unlock` at once: the second waits here, then finds the first one's agent.
        let lock = open(paths.startLock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw CommandFailure("Cannot open \(paths.startLock): \(String(cString: strerror(errno))).") }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 && errno == EINTR {}
        if let agent = try AgentVault.connect(vaultPath: paths.vault) { return agent.status.pid }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw CommandFailure("Cannot start the agent: no pipe.") }
        // Only the agent's stdout and stderr (dup2 clears the flag there) may hold the write end.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let child = ChildProcess.start("/proc/self/exe", name: "coffer",
                                       arguments: ["--vault", paths.vault, "agent"] + arguments,
                                       input: passphrase, output: pipeEnds[1], newSession: true)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard let child else { throw CommandFailure("Cannot start the agent (coffer agent).") }
        let said = String(decoding: readAll(pipeEnds[0]), as: UTF8.self)
        if said.split(separator: "\n").contains(Substring(ready)) { return child }
        let code = ChildProcess.wait(for: child, upTo: 10) ?? ExitStatus.failure
        let sentence = said.trimmingCharacters(in: .whitespacesAndNewlines)
        throw AgentStartFailure(exitCode: code == 0 ? ExitStatus.failure : code,
                                description: sentence.isEmpty ? "The agent stopped before it was ready (exit \(code))." : sentence)
    }

    /// The agent's stdout and stderr go to /dev/null once it has said "ready": `coffer unlock`
    /// stops reading, and the agent must not die writing to a closed terminal.
    static func detachOutput() {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard null >= 0 else { return }
        dup2(null, STDOUT_FILENO)
        dup2(null, STDERR_FILENO)
        close(null)
    }

    private static func readAll(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}

/// An agent that exited before it was ready: its sentence, and its exit code (3 for a wrong
/// passphrase), which `coffer unlock` exits with.
struct AgentStartFailure: Error, CustomStringConvertible {
    var exitCode: Int32
    var description: String
}
