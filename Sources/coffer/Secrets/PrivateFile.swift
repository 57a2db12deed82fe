import CofferCore
import Foundation

/// Writes a file that holds secrets (`coffer inject --out`): mode 0600 from its first byte, whole
/// or not at all, and never over an existing file unless asked.
///
/// The bytes go to a new temporary file beside the target (0600, `mkstemp`), are synced, then the
/// file takes the target's name: with `link`, which fails if the name exists — so no check-then-write
/// race, and a symlink planted at the name is refused, not followed — or, replacing, with `rename`,
/// which replaces the name itself (a symlink there too), never a file it points to.
enum PrivateFile {
    enum Failure: Error, CustomStringConvertible {
        case exists(String)
        case unwritable(String, reason: String)

        var description: String {
            switch self {
            case .exists(let path):
                return "\(TerminalText.line(path)) exists; give --force to replace it."
            case .unwritable(let path, let reason):
                return "Cannot write \(TerminalText.line(path)): \(reason)."
            }
        }
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    static func write(_ data: Data, to path: String, replacing: Bool) throws(Failure) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var template = Array((directory + "/." + url.lastPathComponent + ".coffer-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw .unwritable(path, reason: String(cString: strerror(errno))) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var isPlaced = false
        defer { if !isPlaced { unlink(temporary) } }
        let written = data.withUnsafeBytes { bytes -> Bool in
            fchmod(descriptor, 0o600)
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return false }
                offset += count
            }
            return fsync(descriptor) == 0
        }
        let reason = String(cString: strerror(errno))
        close(descriptor)
        guard written else { throw .unwritable(path, reason: reason) }
        if replacing {
            guard rename(temporary, path) == 0 else { throw .unwritable(path, reason: String(cString: strerror(errno))) }
            isPlaced = true
        } else {
            guard link(temporary, path) == 0 else {
                if errno == EEXIST { throw .exists(path) }
                throw .unwritable(path, reason: String(cString: strerror(errno)))
            }
            unlink(temporary)
            isPlaced = true
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }
}
