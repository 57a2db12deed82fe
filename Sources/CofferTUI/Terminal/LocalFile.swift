import CofferCore
import Foundation

/// The files the screen reads and writes for an item's attachments, at the paths the person typed
/// and nowhere else (no temporary file beside them).
enum LocalFile {
    enum Problem: Error, Equatable {
        /// Something is at the path and replacing was not asked for.
        case exists
        case tooLarge(size: Int)
        /// Not a regular file (a directory, a FIFO, a device).
        case notAFile
        /// The system's reason.
        case failed(String)
    }

    /// `path` with a leading `~/` taken as the home directory.
    static func expanded(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return UserDirectories.home() + path.dropFirst()
    }

    /// Writes `data` to `path`, mode 0600. Without `replacing`, a file already there is refused
    /// (`O_EXCL`: no race between a check and the write); with it, it is truncated and rewritten.
    static func write(_ data: Data, to path: String, replacing: Bool) throws(Problem) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | (replacing ? O_TRUNC : O_EXCL)
        let descriptor = open(path, flags, 0o600)
        guard descriptor >= 0 else { throw errno == EEXIST ? .exists : .failed(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw .notAFile }
        // A replaced file keeps its mode otherwise; the umask cannot widen 0600 but may narrow it.
        guard fchmod(descriptor, 0o600) == 0 else { throw .failed(String(cString: strerror(errno))) }
        var written = 0
        let failure: Int32? = data.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            while written < buffer.count {
                let count = Glibc.write(descriptor, base + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        if let failure { throw .failed(String(cString: strerror(failure))) }
        guard fsync(descriptor) == 0 else { throw .failed(String(cString: strerror(errno))) }
    }

    /// The bytes of the regular file at `path`, refused past `limit` before they are read.
    static func read(_ path: String, limit: Int) throws(Problem) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else { throw .failed(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .failed(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notAFile }
        guard Int(status.st_size) <= limit else { throw .tooLarge(size: Int(status.st_size)) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .failed(String(cString: strerror(errno)))
            }
            data.append(contentsOf: chunk[..<count])
            if data.count > limit { throw .tooLarge(size: data.count) }  // grew while read
        }
        return data
    }

    /// The sentence for a problem with `path`.
    static func sentence(_ problem: Problem, path: String, reading: Bool) -> String {
        let shown = TerminalText.line(path)
        switch problem {
        case .exists: return "\(shown) exists."
        case .tooLarge(let size): return Attachment.tooLarge(size)
        case .notAFile: return "\(shown) is not a regular file."
        case .failed(let reason):
            return reading ? "\(shown) cannot be read (\(reason))." : "\(shown) cannot be written (\(reason))."
        }
    }
}
