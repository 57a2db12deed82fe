import CofferTestSupport
import Foundation
import XCTest

/// The real OpenSSH programs, pointed at one agent socket: ssh-add, ssh-keygen, ssh.
struct OpenSSHTools {
    /// `SSH_AUTH_SOCK` for every run.
    var socket: String
    /// Where the tests' files go (keys, signatures, known_hosts, the askpass script).
    var work: URL

    /// Runs `/usr/bin/NAME ARGUMENTS` with the agent socket (and `environment`) set.
    func run(_ name: String, _ arguments: [String], stdin: Data = Data(),
             environment: [String: String] = [:]) throws -> ExternalTool.Result {
        try ExternalTool.run("/usr/bin/" + name, arguments, stdin: stdin,
                             environment: ["SSH_AUTH_SOCK": socket].merging(environment) { _, given in given })
    }

    /// `ssh-add -l`'s lines (fingerprints) and its exit status.
    func listed() throws -> (status: Int32, lines: [String]) {
        let result = try run("ssh-add", ["-l"])
        return (result.status, result.outputText.split(separator: "\n").map(String.init))
    }

    /// A program `SSH_ASKPASS` can name that prints `answer` (ssh-add's passphrase prompts).
    func askpass(printing answer: String) throws -> [String: String] {
        let path = work.appendingPathComponent("askpass-\(UUID().uuidString.prefix(8))").path
        try Data("#!/bin/sh\nprintf '%s\\n' '\(answer)'\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o700)
        return ["SSH_ASKPASS": path, "SSH_ASKPASS_REQUIRE": "force"]
    }

    /// Signs a message with the key whose public key line is `publicKey` through the agent
    /// (`ssh-keygen -Y sign` given only the public key), then checks it with `ssh-keygen -Y verify`.
    /// Returns the verify run, and the sign run when that failed.
    func signAndVerify(publicKey: String, message: String = "issue 32 \(UUID().uuidString)") throws -> ExternalTool.Result {
        let name = "key-\(UUID().uuidString.prefix(8))"
        let publicFile = work.appendingPathComponent(name + ".pub")
        let messageFile = work.appendingPathComponent(name + ".msg")
        try Data((publicKey + "\n").utf8).write(to: publicFile)
        try Data(message.utf8).write(to: messageFile)
        let signed = try run("ssh-keygen", ["-Y", "sign", "-f", publicFile.path, "-n", "file", messageFile.path])
        guard signed.status == 0 else { return signed }
        let allowed = work.appendingPathComponent(name + ".allowed")
        try Data("signer@example.org \(publicKey)\n".utf8).write(to: allowed)
        return try run("ssh-keygen", ["-Y", "verify", "-f", allowed.path, "-I", "signer@example.org", "-n", "file",
                                      "-s", messageFile.path + ".sig"], stdin: Data(message.utf8))
    }

    /// A new key pair made by ssh-keygen in `work`: the private key file's path.
    func keygen(_ type: String, comment: String, passphrase: String = "") throws -> String {
        let path = work.appendingPathComponent("made-\(type)-\(UUID().uuidString.prefix(8))").path
        let bits = type == "rsa" ? ["-b", "2048"] : type == "ecdsa" ? ["-b", "256"] : []
        let result = try ExternalTool.run("/usr/bin/ssh-keygen", ["-q", "-t", type] + bits + ["-N", passphrase, "-C", comment, "-f", path])
        guard result.status == 0 else { throw TestSSHFailure("ssh-keygen -t \(type) exited \(result.status): \(result.errorText)") }
        return path
    }
}

struct TestSSHFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A real sshd on a loopback port (architecture's test recipe, TOOLCHAIN.md): its own config,
/// host key and authorized_keys file; publickey only. Stopped by `stop()` (its PidFile's pid).
final class LoopbackSSHD {
    let port: Int
    let directory: URL
    private let pidFile: String

    init(directory: URL, authorizedKeys: [String]) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let hostKey = directory.appendingPathComponent("host_ed25519").path
        let made = try ExternalTool.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey])
        guard made.status == 0 else { throw TestSSHFailure("ssh-keygen for the host key: \(made.errorText)") }
        let authorized = directory.appendingPathComponent("authorized_keys")
        try Data(authorizedKeys.map { $0 + "\n" }.joined().utf8).write(to: authorized)
        pidFile = directory.appendingPathComponent("sshd.pid").path
        port = try Self.freePort()
        let config = directory.appendingPathComponent("sshd_config")
        try Data("""
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(hostKey)
            PidFile \(pidFile)
            AuthorizedKeysFile \(authorized.path)
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            StrictModes no
            PermitRootLogin yes

            """.utf8).write(to: config)
        mkdir("/run/sshd", 0o755)
        let started = try ExternalTool.run("/usr/sbin/sshd", ["-f", config.path, "-E", directory.appendingPathComponent("sshd.log").path])
        guard started.status == 0 else { throw TestSSHFailure("sshd exited \(started.status): \(started.errorText)") }
        let deadline = Date().addingTimeInterval(10)
        while !Self.isListening(port) {
            guard Date() < deadline else { throw TestSSHFailure("sshd did not listen on \(port) in 10 s") }
            usleep(50_000)
        }
    }

    /// The host key's public line (`ssh-ed25519 AAAA…`).
    var hostKey: String {
        (try? String(contentsOfFile: directory.appendingPathComponent("host_ed25519.pub").path, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    /// What sshd logged (`Accepted publickey for root … SHA256:…`).
    var log: String {
        (try? String(contentsOfFile: directory.appendingPathComponent("sshd.log").path, encoding: .utf8)) ?? ""
    }

    /// `ssh -p PORT root@127.0.0.1 COMMAND` with the agent's keys and no others (no config, no key
    /// files), never asking anything; `options` come first, so they win over the defaults.
    func ssh(_ tools: OpenSSHTools, _ command: String, options: [String] = []) throws -> ExternalTool.Result {
        try tools.run("ssh", options + ["-F", "/dev/null", "-p", String(port), "-o", "BatchMode=yes",
                              "-o", "IdentityFile=" + directory.appendingPathComponent("no-such-key").path,
                              "-o", "StrictHostKeyChecking=no",
                              "-o", "UserKnownHostsFile=" + directory.appendingPathComponent("known_hosts").path,
                              "root@127.0.0.1", command])
    }

    func stop() {
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
        kill(pid, SIGTERM)
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw TestSSHFailure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func isListening(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
