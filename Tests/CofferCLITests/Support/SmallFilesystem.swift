import CofferTestSupport
import Foundation
import XCTest

/// A tmpfs of a few MiB mounted on a test's directory, which the test fills to the last byte so
/// that the next write into it fails with ENOSPC, as on a full disk.
///
/// A real filesystem, not a simulation: SQLite sees ENOSPC from `write` (and from extending its
/// `-shm`), exactly what a full laptop disk gives. Mounting needs root (CI runs as root); a test
/// that cannot mount fails, it never skips. `unmount()` belongs in the test's tear-down.
final class SmallFilesystem {
    let mountPoint: URL
    private var filler: URL { mountPoint.appendingPathComponent("filler") }
    private var isMounted = false

    struct MountFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Mounts a tmpfs of `megabytes` MiB on `mountPoint` (created if missing, must be empty).
    init(at mountPoint: URL, megabytes: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        self.mountPoint = mountPoint
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let result = try ToolProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", mountPoint.path])
        guard result.status == 0 else {
            let reason = "cannot mount a \(megabytes) MiB tmpfs on \(mountPoint.path) (uid \(getuid()); "
                + "the disk-full tests need root, as CI has): \(result.output.trimmingCharacters(in: .whitespacesAndNewlines))"
            XCTFail(reason, file: file, line: line)
            throw MountFailed(description: reason)
        }
        isMounted = true
    }

    /// Fills the filesystem, then gives back `bytes` (whole pages): enough for SQLite to open the
    /// vault, so that an operation runs out of room in the middle of its transaction.
    func fill(leaving bytes: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        try fill(file: file, line: line)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: filler.path)[.size] as? Int,
                                 file: file, line: line)
        guard truncate(filler.path, off_t(max(0, size - bytes))) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Writes a filler file until the filesystem refuses another byte (ENOSPC).
    func fill(file: StaticString = #filePath, line: UInt = #line) throws {
        let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        // Large blocks first, then single bytes: tmpfs counts whole pages, so the last page fills too.
        for size in [1 << 20, 1 << 16, 1 << 12, 1] {
            let block = [UInt8](repeating: 0xA5, count: size)
            while true {
                let written = block.withUnsafeBytes { write(descriptor, $0.baseAddress, size) }
                if written > 0 || (written < 0 && errno == EINTR) { continue }
                if written < 0 && errno == ENOSPC { break }
                XCTFail("filling \(mountPoint.path) stopped with errno \(errno), not ENOSPC", file: file, line: line)
                return
            }
        }
        XCTAssertEqual(freeBytes, 0, "\(mountPoint.path) is not full", file: file, line: line)
    }

    /// Removes the filler: the space the operations before `fill()` did not use is free again.
    func free() throws {
        if FileManager.default.fileExists(atPath: filler.path) { try FileManager.default.removeItem(at: filler) }
    }

    /// Bytes free for an unprivileged writer (tmpfs reserves none for root).
    var freeBytes: Int {
        var stats = statvfs()
        guard statvfs(mountPoint.path, &stats) == 0 else { return -1 }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    func unmount() {
        guard isMounted else { return }
        // Lazy: a `coffer` child killed by a test's timeout may still hold a file open in it.
        _ = try? ToolProcess.run("/bin/umount", ["-l", mountPoint.path])
        isMounted = false
    }
}
