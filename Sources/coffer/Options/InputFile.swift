import CofferCore
import Foundation

/// Files named on the command line whose bytes Coffer reads whole: import files, `pass` entries,
/// passphrase and password files. Each is opened once and checked on that descriptor (no race
/// between a check and the read): a regular file (not `/dev/zero` or a FIFO that never ends)
/// no larger than its limit, refused before a byte is read; a secret's file readable only by its
/// owner.
enum InputFile {
    /// Far above an export of 100,000 items (about 60 MB as Coffer's JSON), far below what would
    /// strain a 2 GB machine while parsing.
    static let importLimit = 128 << 20
    /// One `pass` entry, encrypted: a password with notes is a few hundred bytes.
    static let passEntryLimit = 1 << 20
    /// A passphrase or account password file.
    static let secretLimit = 64 << 10

    enum Problem: Error, Equatable {
        case unreadable(String)
        case notAFile
        case tooLarge(size: Int, limit: Int)
        case readableByOthers(mode: mode_t)
    }

    /// The bytes of `path`: a regular file of at most `limit` bytes (or, when `allowsStreams`, a
    /// pipe or terminal read up to the limit: `--passphrase-file /dev/stdin`). With `isSecret`, a
    /// regular file that group or others may read is refused, as ssh refuses such a key.
    static func read(_ path: String, limit: Int, isSecret: Bool = false, allowsStreams: Bool = false) throws(Problem) -> Data {
        let descriptor = try opened(path, limit: limit, isSecret: isSecret, allowsStreams: allowsStreams)
        defer { close(descriptor) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        defer { wipe(&chunk) }
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                wipe(&data)
                throw .unreadable(String(cString: strerror(errno)))
            }
            data.append(contentsOf: chunk[..<count])
            if data.count > limit {  // grew while read, or a stream
                wipe(&data)
                throw .tooLarge(size: data.count, limit: limit)
            }
        }
        return data
    }

    /// Checks `path` as `read` would, without reading it (a file another program reads: gpg).
    static func check(_ path: String, limit: Int) throws(Problem) {
        close(try opened(path, limit: limit, isSecret: false, allowsStreams: false))
    }

    /// `path` opened for reading and checked on that descriptor.
    private static func opened(_ path: String, limit: Int, isSecret: Bool, allowsStreams: Bool) throws(Problem) -> Int32 {
        // Without blocking unless a stream is wanted: a FIFO named as an import file would wait
        // for a writer forever before it could be refused.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (allowsStreams ? 0 : O_NONBLOCK))
        guard descriptor >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            throw .unreadable(String(cString: strerror(errno)))
        }
        let problem: Problem?
        let kind = status.st_mode & S_IFMT
        if kind == S_IFREG {
            problem = Int(status.st_size) > limit ? .tooLarge(size: Int(status.st_size), limit: limit)
                : isSecret && status.st_mode & 0o077 != 0 ? .readableByOthers(mode: status.st_mode & 0o777) : nil
        } else {
            problem = allowsStreams && [S_IFIFO, S_IFCHR, S_IFSOCK].contains(kind) ? nil : .notAFile
        }
        if let problem {
            close(descriptor)
            throw problem
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    /// What is wrong with the file `path`, as a clause ("notes.csv is 200 MiB, over the limit of
    /// 128 MiB") for the caller's sentence.
    static func reason(_ problem: Problem, path: String) -> String {
        let shown = TerminalText.line(path)
        switch problem {
        case .unreadable(let reason):
            return "\(shown) cannot be read (\(reason))"
        case .notAFile:
            return "\(shown) is not a regular file"
        case .tooLarge(let size, let limit):
            return "\(shown) is \(megabytes(size)), over the limit of \(megabytes(limit))"
        case .readableByOthers(let mode):
            return "\(shown) can be read by other users (mode \(String(mode, radix: 8))): make it private with `chmod 600`"
        }
    }

    private static func megabytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : bytes >= 1 << 10 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }
}
