import Foundation

/// Looks for secret strings ("canaries") in raw bytes, in every encoding a careless store might
/// leave them in: UTF-8, hex (lower and upper case), UTF-16 (LE and BE), and base64 (standard and
/// URL-safe) at each of the three alignments the canary can have inside a longer base64 text.
struct CanaryScanner {
    struct Needle {
        var canary: String
        var encoding: String
        var bytes: [UInt8]
    }

    struct Hit: CustomStringConvertible {
        var file: String
        var offset: Int
        var canary: String
        var encoding: String
        var description: String { "\(encoding) of canary \(canary) at \(file):\(offset)" }
    }

    let needles: [Needle]
    /// Needle indexes by their first three bytes.
    private let byPrefix: [Int: [Int]]
    /// One bit per three-byte prefix: a fast first filter.
    private let prefixBits: [UInt64]

    init(canaries: [String]) {
        needles = canaries.flatMap(Self.needles(for:))
        var byPrefix: [Int: [Int]] = [:]
        var bits = [UInt64](repeating: 0, count: (1 << 24) / 64)
        for (index, needle) in needles.enumerated() {
            precondition(needle.bytes.count >= 8, "canary too short to scan for: \(needle.canary)")
            let key = Int(needle.bytes[0]) << 16 | Int(needle.bytes[1]) << 8 | Int(needle.bytes[2])
            byPrefix[key, default: []].append(index)
            bits[key >> 6] |= 1 << UInt64(key & 63)
        }
        self.byPrefix = byPrefix
        prefixBits = bits
    }

    /// Every encoded form of `canary` that a scan looks for.
    static func needles(for canary: String) -> [Needle] {
        let bytes = Array(canary.utf8)
        var result = [
            Needle(canary: canary, encoding: "UTF-8", bytes: bytes),
            Needle(canary: canary, encoding: "hex", bytes: Array(bytes.map { String(format: "%02x", $0) }.joined().utf8)),
            Needle(canary: canary, encoding: "HEX", bytes: Array(bytes.map { String(format: "%02X", $0) }.joined().utf8)),
            Needle(canary: canary, encoding: "UTF-16LE", bytes: canary.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            Needle(canary: canary, encoding: "UTF-16BE", bytes: canary.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }),
        ]
        for alignment in 0..<3 {
            let fragment = base64Fragment(of: bytes, alignment: alignment)
            result.append(Needle(canary: canary, encoding: "base64+\(alignment)", bytes: Array(fragment.utf8)))
            let urlSafe = fragment.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            if urlSafe != fragment {
                result.append(Needle(canary: canary, encoding: "base64url+\(alignment)", bytes: Array(urlSafe.utf8)))
            }
        }
        return result
    }

    /// The base64 characters that depend only on `bytes` when they follow `alignment` other bytes:
    /// the characters that straddle the neighbours at either edge are left out.
    static func base64Fragment(of bytes: [UInt8], alignment: Int) -> String {
        let padded = [UInt8](repeating: 0, count: alignment) + bytes
        let text = Array(Data(padded).base64EncodedString().trimmingCharacters(in: CharacterSet(charactersIn: "=")))
        let first = (8 * alignment + 5) / 6           // first character whose 6 bits all come from `bytes`
        let last = (8 * (alignment + bytes.count)) / 6 - 1 // last such character
        return String(text[first...last])
    }

    /// Every needle found in `data`.
    func scan(_ data: Data, file: String) -> [Hit] {
        var hits: [Hit] = []
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard raw.count >= 3 else { return }
            let bytes = raw.bindMemory(to: UInt8.self)
            for offset in 0...(bytes.count - 3) {
                let key = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
                guard prefixBits[key >> 6] & (1 << UInt64(key & 63)) != 0, let candidates = byPrefix[key] else { continue }
                for index in candidates {
                    let needle = needles[index]
                    guard offset + needle.bytes.count <= bytes.count else { continue }
                    if needle.bytes.indices.allSatisfy({ bytes[offset + $0] == needle.bytes[$0] }) {
                        hits.append(Hit(file: file, offset: offset, canary: needle.canary, encoding: needle.encoding))
                    }
                }
            }
        }
        return hits
    }

    /// Scans every regular file in `directory` (the vault and its -wal and -shm files, if any).
    func scan(directory: URL) throws -> (files: [String], hits: [Hit]) {
        var files: [String] = []
        var hits: [Hit] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
            let url = directory.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files.append(name)
            hits += scan(try Data(contentsOf: url), file: name)
        }
        return (files, hits)
    }

    /// A random canary: 24 lowercase letters and digits (usable as a host name label, too).
    static func randomCanary() -> String { random(24, of: "abcdefghijklmnopqrstuvwxyz0123456789") }

    /// A random canary that is also a valid TOTP secret (24 lowercase base32 characters), for the
    /// `totp` field, which `add` and `edit` refuse when it yields no code.
    static func randomBase32Canary() -> String { random(24, of: "abcdefghijklmnopqrstuvwxyz234567") }

    private static func random(_ count: Int, of alphabet: String) -> String {
        let characters = Array(alphabet)
        return String((0..<count).map { _ in characters.randomElement()! })
    }
}
