import Foundation

/// QR code images for the tests, made by Debian's `qrencode` (the real encoder users' images come
/// from), and a minimal PNG writer for the images qrencode cannot make (none, or two codes in one).
/// A test that needs qrencode fails (throws) when it is missing, never skips.
public enum QRImages {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static let executable = ["/usr/bin/qrencode", "/usr/local/bin/qrencode"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// `qrencode -o PATH [OPTIONS] TEXT`: a PNG of `text`'s QR code at `path`.
    public static func encode(_ text: String, to path: String, options: [String] = []) throws {
        let output = try run(["-o", path] + options + [text])
        guard FileManager.default.fileExists(atPath: path) else { throw Failure(description: "qrencode wrote no file: \(output)") }
    }

    /// The PNG bytes of `text`'s QR code, as qrencode draws it.
    public static func png(_ text: String, options: [String] = []) throws -> Data {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-qr-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try encode(text, to: path, options: options)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// `text`'s modules as qrencode computes them (`-t ASCII`, a quiet zone of 4): true is dark.
    public static func modules(_ text: String) throws -> [[Bool]] {
        let lines = try run(["-t", "ASCII", "-m", "4", "-o", "-", text]).split(separator: "\n", omittingEmptySubsequences: false)
        let rows = lines.filter { !$0.isEmpty }.map { line in stride(from: 0, to: line.count, by: 2).map { Array(line)[$0] == "#" } }
        guard let width = rows.first?.count, width > 0, rows.allSatisfy({ $0.count == width }) else {
            throw Failure(description: "qrencode -t ASCII gave no square of modules")
        }
        return rows
    }

    /// A grey PNG of several codes' modules side by side, `scale` pixels a module, on white.
    public static func sideBySide(_ codes: [[[Bool]]], scale: Int = 4) -> Data {
        let height = (codes.map(\.count).max() ?? 0) * scale
        let width = codes.map { ($0.first?.count ?? 0) * scale }.reduce(0, +)
        var pixels = [UInt8](repeating: 255, count: width * height)
        var left = 0
        for code in codes {
            for (row, modules) in code.enumerated() {
                for (column, isDark) in modules.enumerated() where isDark {
                    for y in 0..<scale {
                        for x in 0..<scale { pixels[(row * scale + y) * width + left + column * scale + x] = 0 }
                    }
                }
            }
            left += (code.first?.count ?? 0) * scale
        }
        return GreyPNG.encode(width: width, height: height, pixels: pixels)
    }

    private static func run(_ arguments: [String]) throws -> String {
        guard let executable else {
            throw Failure(description: "qrencode is not installed (Debian package qrencode; `make deps` installs it)")
        }
        let (status, output) = try ToolProcess.run(executable, arguments)
        guard status == 0 else { throw Failure(description: "qrencode exited \(status): \(output)") }
        return output
    }
}

/// An 8-bit grey, non-interlaced PNG with its pixels in stored (uncompressed) deflate blocks: the
/// smallest writer that any reader accepts, for test images.
public enum GreyPNG {
    public static func encode(width: Int, height: Int, pixels: [UInt8]) -> Data {
        var raw: [UInt8] = []
        for row in 0..<height {
            raw.append(0)  // filter: none
            raw += pixels[(row * width)..<((row + 1) * width)]
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let isLast = offset + count == raw.count
            zlib.append(isLast ? 1 : 0)
            zlib += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<(offset + count)]
            offset += count
        } while offset < raw.count
        zlib += bigEndian(adler32(raw))
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 0, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return Data(png)
    }

    /// A chunk: length, type, data, CRC-32 of type and data.
    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
