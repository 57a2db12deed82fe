import Foundation

/// Refuses vaults on filesystems where SQLite's POSIX locks are unreliable (network shares):
/// there two processes on one vault — the screen and a `coffer add` — could corrupt it.
///
/// The type comes from the mount table (`/proc/self/mountinfo`), not from the vault: opening and
/// closing a descriptor of the vault would drop this process's locks on it.
public enum FilesystemCheck {
    /// Filesystem types (as the mount table spells them) whose locks SQLite warns about.
    static let networkTypes: Set<String> = [
        "nfs", "nfs4", "cifs", "smb", "smb2", "smb3", "9p", "afs", "lustre", "ceph", "glusterfs",
        "fuse.sshfs", "fuse.rclone", "fuse.s3fs", "davfs", "fuse.davfs2", "vboxsf", "vmhgfs", "fuse.vmhgfs-fuse",
    ]

    /// Throws `unsafeFilesystem` when the vault (or, before it exists, its directory) lies on a
    /// network filesystem, unless `COFFER_ALLOW_NETWORK_FS=1`.
    public static func requireLocking(forVaultAt path: String,
                                      environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard environment["COFFER_ALLOW_NETWORK_FS"] != "1",
              let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().resolvingSymlinksInPath().path
        if let type = filesystemType(of: directory, mountInfo: table), networkTypes.contains(type) {
            throw CoreError.unsafeFilesystem(path: path, kind: type)
        }
    }

    /// Below this many free bytes a failed write is taken for a full disk (`VaultDatabase`): less
    /// than SQLite needs to open a vault (its 32 KiB `-shm`) and write a few pages.
    static let nearlyFullBytes = 1 << 20

    /// Bytes an unprivileged process may still write on the filesystem of the vault's directory
    /// (`statvfs`, which opens nothing), or nil when that cannot be told.
    static func freeBytes(forVaultAt path: String) -> Int? {
        var stats = statvfs()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard statvfs(directory, &stats) == 0 else { return nil }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    /// The type of the filesystem `directory` (absolute, symlinks resolved) lies on: that of the
    /// longest mount point containing it, in `/proc/self/mountinfo`'s format (proc(5)).
    static func filesystemType(of directory: String, mountInfo: String) -> String? {
        var best: (mountPoint: String, type: String)?
        for line in mountInfo.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            // ID, parent, major:minor, root, mount point, options, optional fields…, "-", type, source, options.
            guard fields.count > 6, let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count else { continue }
            let mountPoint = unescape(fields[4])
            let contains = mountPoint == "/" || directory == mountPoint || directory.hasPrefix(mountPoint + "/")
            if contains, mountPoint.count >= (best?.mountPoint.count ?? -1) {
                best = (mountPoint, fields[separator + 1])
            }
        }
        return best?.type
    }

    /// Mount points escape space, tab, newline and backslash as octal (`\040`).
    private static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        var rest = Substring(field).utf8[...]
        while let byte = rest.first {
            let octal = rest.dropFirst().prefix(3)
            if byte == UInt8(ascii: "\\"), octal.count == 3, let value = UInt8(String(decoding: octal, as: UTF8.self), radix: 8) {
                bytes.append(value)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(byte)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
