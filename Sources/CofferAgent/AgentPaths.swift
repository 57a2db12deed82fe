import CofferCore
import Crypto
import Foundation

/// Where a vault's agent listens (architecture §12): `$XDG_RUNTIME_DIR/coffer/`, else
/// `$TMPDIR/coffer-UID/`; one socket per vault, named by a digest of the vault's real path so that
/// two spellings of one file find one agent. The directory must be ours and private (0700), the
/// socket ours and 0600: anything else may be another user's trap, and is refused with why.
public struct AgentPaths: Sendable {
    public var directory: String
    /// The vault file, with symlinks resolved.
    public var vault: String

    public init(directory: String, vault: String) {
        self.directory = directory
        self.vault = vault
    }

    public var socket: String { directory + "/" + name + ".sock" }
    /// Where the agent speaks the ssh-agent protocol: stable for the vault, so a shell's
    /// `SSH_AUTH_SOCK` set once finds every later agent of it.
    public var sshSocket: String { directory + "/" + name + ".ssh.sock" }
    /// Held (flock) by a `coffer unlock` while it starts an agent: two at once make one agent.
    public var startLock: String { directory + "/" + name + ".start" }

    /// The first 8 bytes of the SHA-256 of the vault's path, in hex. Written out by hand: the
    /// generic `Data(_:)` and `Hex.lowercase(_:)` cost every command ~0.1 ms of runtime type lookups.
    private var name: String {
        var path = vault
        var hasher = SHA256()
        path.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        let digest = hasher.finalize()
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        digest.withUnsafeBytes { bytes in
            for byte in bytes.prefix(8) { hex += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The sockets' directory for this user, from the environment.
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/coffer" }
        let temporary = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return temporary + "/coffer-\(getuid())"
    }

    /// The paths for the vault at `path`, in `directory` (the environment's, but for tests).
    public static func forVault(_ path: String, directory: String = AgentPaths.directory()) -> AgentPaths {
        let resolved = realpath(path, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? (path as NSString).standardizingPath
        return AgentPaths(directory: directory, vault: resolved)
    }

    /// Makes the directory (0700) if it is missing, then checks it.
    public func prepareDirectory() throws {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            let parent = (directory as NSString).deletingLastPathComponent
            throw AgentError.unusable("Cannot create the agent directory \(directory) (\(String(cString: strerror(errno)))); "
                + "check that \(parent) exists and is writable.")
        }
        try checkDirectory()
    }

    /// The directory is a real directory, ours, and closed to everyone else.
    public func checkDirectory() throws {
        var info = stat()
        guard lstat(directory, &info) == 0 else { throw AgentError.absent }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw AgentError.unusable("The agent directory \(directory) is not a directory; Coffer will not use it.")
        }
        try Self.checkOwnerAndMode(info, of: "The agent directory \(directory)", allowed: 0o700)
    }

    /// The socket is a socket, ours, and 0600; `absent` when there is none.
    public func checkSocket() throws {
        try checkDirectory()
        var info = stat()
        guard lstat(socket, &info) == 0 else { throw AgentError.absent }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw AgentError.unusable("\(socket) is not a socket; Coffer will not use it (remove it).")
        }
        try Self.checkOwnerAndMode(info, of: "The agent socket \(socket)", allowed: 0o600)
    }

    private static func checkOwnerAndMode(_ info: stat, of what: String, allowed: mode_t) throws {
        guard info.st_uid == getuid() else {
            throw AgentError.unusable("\(what) belongs to uid \(info.st_uid), not to you (uid \(getuid())); Coffer will not use it.")
        }
        let mode = info.st_mode & 0o7777
        guard mode & ~allowed == 0 else {
            throw AgentError.unusable("\(what) has mode \(String(mode, radix: 8)), open to other users (it must be "
                + "\(String(allowed, radix: 8))); Coffer will not use it.")
        }
    }
}
