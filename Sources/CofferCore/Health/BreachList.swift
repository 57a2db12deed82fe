import Crypto
import Foundation

/// A local Pwned Passwords file ("ordered by hash": one `SHA1HEX:COUNT` line per password,
/// uppercase, sorted ascending), searched by binary search over byte offsets with `pread`.
///
/// The full file is tens of gigabytes: it is never read whole, and a lookup reads about
/// log2(lines) short windows. Lines have different lengths (the counts do), so each probe lands
/// anywhere in a line and moves on to the start of the next one.
public final class BreachList: @unchecked Sendable {  // one descriptor, read with pread only
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    private let path: String
    private let descriptor: Int32
    private let size: Int64
    /// Longer lines than this are not Pwned Passwords lines (40 hex digits, a colon, a count).
    static let window = 128

    public init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Problem(description: "Cannot read the breach list \(path): \(String(cString: strerror(errno))).")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw Problem(description: "The breach list \(path) is not a regular file.")
        }
        size = Int64(status.st_size)
    }

    deinit { close(descriptor) }

    /// How often the list says `password` was seen in breaches; nil when it is not in the list.
    public func count(of password: String) throws -> Int? {
        try count(ofHash: Self.hash(of: password))
    }

    /// The list's form of a password: its SHA-1 as 40 uppercase hex digits.
    public static func hash(of password: String) -> [UInt8] {
        Insecure.SHA1.hash(data: Data(password.utf8)).flatMap { byte in
            [Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0x0F)]
        }
    }

    /// The count on the line whose hash is `target` (40 uppercase hex digits).
    func count(ofHash target: [UInt8]) throws -> Int? {
        // Invariant: `low` is a line start, `high` a line start or the end, and the target's
        // line, if any, starts in low..<high.
        var low: Int64 = 0
        var high = size
        while low < high {
            let middle = low + (high - low) / 2
            let start = try lineStart(atOrAfter: middle)
            guard start < high else {
                // No line starts in middle..<high: the few lines left start before the middle.
                return try scan(from: low, to: high, for: target)
            }
            let line = try self.line(at: start)
            switch compare(line.hash, target) {
            case .equal: return line.count
            case .less: low = start + Int64(line.length)
            case .greater: high = start
            }
        }
        return nil
    }

    private enum Order { case less, equal, greater }

    private func compare(_ hash: ArraySlice<UInt8>, _ target: [UInt8]) -> Order {
        for (a, b) in zip(hash, target) where a != b { return a < b ? .less : .greater }
        return .equal
    }

    /// The first line start at or after `offset`: `offset` itself when a newline precedes it.
    private func lineStart(atOrAfter offset: Int64) throws -> Int64 {
        if offset == 0 { return 0 }
        var position = offset - 1
        while position < size {
            let bytes = try read(at: position, count: Self.window)
            if let newline = bytes.firstIndex(of: 0x0A) { return position + Int64(newline) + 1 }
            position += Int64(bytes.count)
        }
        return size
    }

    /// The line starting at `start`: its hash (uppercased), count, and length with its newline.
    private func line(at start: Int64) throws -> (hash: ArraySlice<UInt8>, count: Int, length: Int) {
        let bytes = try read(at: start, count: Self.window)
        let end = bytes.firstIndex(of: 0x0A)
        guard end != nil || start + Int64(bytes.count) == size else { throw malformed(at: start) }
        var text = bytes[..<(end ?? bytes.count)]
        if text.last == 0x0D { text = text.dropLast() }  // CRLF, as the downloader writes on Windows
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")), colon - text.startIndex == 40 else {
            throw malformed(at: start)
        }
        let hash = text[..<colon].map(Self.uppercased)
        guard hash.allSatisfy(Self.isHexDigit),
              let count = Int(String(decoding: text[(colon + 1)...], as: UTF8.self)) else { throw malformed(at: start) }
        return (hash[...], count, (end ?? bytes.count - 1) + 1)
    }

    /// Reads each line in low..<high in order (the short tail of a search).
    private func scan(from low: Int64, to high: Int64, for target: [UInt8]) throws -> Int? {
        var position = low
        while position < high {
            let line = try self.line(at: position)
            if compare(line.hash, target) == .equal { return line.count }
            position += Int64(line.length)
        }
        return nil
    }

    private func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(min(Int64(count), size - offset)))
        guard !bytes.isEmpty else { return [] }
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard got >= 0 else {
            throw Problem(description: "Cannot read the breach list \(path): \(String(cString: strerror(errno))).")
        }
        return Array(bytes.prefix(got))
    }

    private func malformed(at offset: Int64) -> Problem {
        Problem(description: "The breach list \(path) has a line that is not SHA1HEX:COUNT at byte \(offset).")
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 48 + value : 55 + value }
    private static func uppercased(_ byte: UInt8) -> UInt8 { (97...102).contains(byte) ? byte - 32 : byte }
    private static func isHexDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (65...70).contains(byte) }
}
