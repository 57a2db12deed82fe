import Foundation
import XCTest

/// A raw client of an agent's socket (4-byte big-endian length, then JSON), for what a command
/// never sends: a huge length, half a header, a silent connection, a request out of range.
final class AgentWire {
    private let descriptor: Int32

    /// Connects to the socket of the agent holding `vault` (its own, not its SSH socket).
    init(_ vault: TestVault, file: StaticString = #filePath, line: UInt = #line) throws {
        let directory = vault.root.appendingPathComponent("coffer").path
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".sock") && !$0.hasSuffix(".ssh.sock") },
                                 "no agent socket", file: file, line: line)
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((directory + "/" + name).utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: path) }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        XCTAssertEqual(connected, 0, "connect: \(String(cString: strerror(errno)))", file: file, line: line)
        // A send the agent never reads must not block the test for ever.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    static func header(_ length: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: length >> (24 - 8 * $0)) }
    }

    /// Sends all of `bytes`; false once the agent has closed (or stopped reading for 10 s).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    func sendFrame(_ json: String) {
        send(Self.header(json.utf8.count) + Array(json.utf8))
    }

    /// Everything the agent writes until it closes the connection, or until `seconds` pass
    /// (`closed` false).
    func readUntilClosed(seconds: Double) -> (data: [UInt8], closed: Bool) {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return (data, false) }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let got = recv(descriptor, &buffer, buffer.count, 0)
            if got < 0 && errno == EINTR { continue }
            // A reset (the agent closed with our bytes unread) is a close too.
            guard got > 0 else { return (data, true) }
            data += buffer[0..<got]
        }
    }

    /// The JSON object of the first frame in `data`.
    static func firstAnswer(_ data: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        XCTAssertGreaterThanOrEqual(data.count, 4, "no answer", file: file, line: line)
        let length = data.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        XCTAssertGreaterThanOrEqual(data.count, 4 + length, "a cut answer", file: file, line: line)
        let body = Data(data.dropFirst(4).prefix(length))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any], file: file, line: line)
    }

    /// The resident memory of a process, in bytes (VmRSS).
    static func residentBytes(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        return kilobytes * 1024
    }
}
