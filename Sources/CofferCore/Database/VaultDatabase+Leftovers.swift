import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The files a new vault is built in (`<vault>.creating-<8 hex>`, with SQLite's `-wal`, `-shm` and
/// `-journal`) and the removal of those a crashed creation left behind.
///
/// A creation holds `flock(LOCK_EX)` on its main file from the moment it exists until every one of
/// its files is gone, so a leftover is exactly a file whose lock can be taken. An age threshold
/// would be guessing: a slow creation (a big KDF on a loaded machine) can outlive any threshold,
/// and a fresh leftover would wait for no reason. flock is per open file description, apart from
/// SQLite's POSIX locks on the same file, so SQLite opening and closing it never drops ours.
extension VaultDatabase {
    static let creatingMarker = ".creating-"
    private static let creatingSuffixes = ["-wal", "-shm", "-journal"]

    /// A temporary file that exists, is 0600, and is locked by this process for as long as the
    /// returned descriptor stays open. The caller removes it with `removeCreation`, then closes.
    static func claimCreation(for path: String) throws -> (path: String, descriptor: Int32) {
        while true {
            let temporary = path + creatingMarker + UUID().uuidString.prefix(8).lowercased()
            // Create the file ourselves so it is 0600 from the first byte; SQLite gives -wal and -shm the same mode.
            let descriptor = Glibc.open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                if errno == EEXIST { continue }
                let reason = errno == EACCES || errno == EROFS || errno == EPERM
                    ? "the directory is not writable" : String(cString: strerror(errno))
                throw CoreError.cannotCreate(path: path, reason: reason)
            }
            // Between open and flock another process may have taken the file for a leftover and
            // removed it: then the name no longer leads to our file, and we start over.
            if flock(descriptor, LOCK_EX) == 0, isSameFile(descriptor, temporary) { return (temporary, descriptor) }
            Glibc.close(descriptor)
        }
    }

    /// Removes a creation's files, the main file last: while it exists, so does its lock.
    static func removeCreation(_ temporary: String) {
        for suffix in creatingSuffixes + [""] { Glibc.unlink(temporary + suffix) }
    }

    /// Removes the files of every creation of a vault at `path` that is no longer running (a
    /// crash, a kill), and any `-wal`/`-shm`/`-journal` whose main file is gone. Best effort: a
    /// file that cannot be removed stays and nothing fails.
    static func removeCreationLeftovers(of path: String) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let prefix = url.lastPathComponent + creatingMarker
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        var creations = Set<String>()
        for name in names where name.hasPrefix(prefix) {
            let tag = name.dropFirst(prefix.count).prefix(8)
            let suffix = String(name.dropFirst(prefix.count + 8))
            guard tag.count == 8, tag.allSatisfy(\.isHexDigit), suffix.isEmpty || creatingSuffixes.contains(suffix) else { continue }
            creations.insert((directory as NSString).appendingPathComponent(prefix + tag))
        }
        for temporary in creations {
            // Linked into place already (a crash between link and unlink): the file *is* the vault.
            // Opening and closing it would drop this process's SQLite locks on the vault, so only
            // the name goes; the vault keeps its data under its own name.
            if isSameFile(path, temporary) {
                removeCreation(temporary)
                continue
            }
            let descriptor = Glibc.open(temporary, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            if descriptor < 0 {
                // No main file: a creation removes it last, so these are a crash's remains.
                if errno == ENOENT { removeCreation(temporary) }
                continue
            }
            defer { Glibc.close(descriptor) }
            // Locked: a creation is running. Replaced meanwhile: not the file we hold.
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, isSameFile(descriptor, temporary) else { continue }
            removeCreation(temporary)
        }
    }

    private static func isSameFile(_ first: String, _ second: String) -> Bool {
        var one = stat(), other = stat()
        guard stat(first, &one) == 0, lstat(second, &other) == 0 else { return false }
        return one.st_dev == other.st_dev && one.st_ino == other.st_ino
    }

    private static func isSameFile(_ descriptor: Int32, _ path: String) -> Bool {
        var opened = stat(), named = stat()
        guard fstat(descriptor, &opened) == 0, lstat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }
}
