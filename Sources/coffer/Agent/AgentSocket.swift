import CofferCore
import Foundation

/// One connected Unix stream socket, carrying length-prefixed frames (4 bytes, big-endian, then
/// the JSON): a frame's end is known without scanning its text.
final class AgentSocket: @unchecked Sendable {
    let descriptor: Int32
    /// Larger frames are refused: a listing of 100,000 items is far below it.
    static let maximumFrame = 1 << 30

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Connects to `path`; `absent` when nothing listens there (no socket, or a killed agent's).
    static func connect(to path: String) throws -> AgentSocket {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw AgentError.unusable("Cannot make a socket: \(String(cString: strerror(errno))).") }
        let connection = AgentSocket(descriptor: descriptor)
        let result = try withAddress(path) { address, length in Glibc.connect(descriptor, address, length) }
        guard result == 0 else {
            if errno == ENOENT || errno == ECONNREFUSED { throw AgentError.absent }
            throw AgentError.unusable("Cannot reach the agent at \(path): \(String(cString: strerror(errno))).")
        }
        return connection
    }

    /// A listening socket at `path` (replacing a stale one), mode 0600.
    static func listen(at path: String) throws -> AgentSocket {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw AgentError.unusable("Cannot make a socket: \(String(cString: strerror(errno))).") }
        let listener = AgentSocket(descriptor: descriptor)
        unlink(path)
        let bound = try withAddress(path) { address, length in bind(descriptor, address, length) }
        guard bound == 0, chmod(path, 0o600) == 0, Glibc.listen(descriptor, 64) == 0 else {
            throw AgentError.unusable("Cannot listen at \(path): \(String(cString: strerror(errno))).")
        }
        return listener
    }

    /// The next connection; nil when accept fails (the listener was shut down).
    func accept() -> AgentSocket? {
        while true {
            let client = Glibc.accept(descriptor, nil, nil)
            if client >= 0 {
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                return AgentSocket(descriptor: client)
            }
            if errno != EINTR { return nil }
        }
    }

    /// The uid of the process at the other end (SO_PEERCRED: pid, uid, gid as three 32-bit words).
    var peerUID: uid_t? {
        var credentials = [UInt32](repeating: 0, count: 3)
        var length = socklen_t(MemoryLayout<UInt32>.size * 3)
        let result = credentials.withUnsafeMutableBytes { bytes in
            getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, bytes.baseAddress, &length)
        }
        return result == 0 ? credentials[1] : nil
    }

    /// Gives up on a read that waits longer than `seconds` (a hung agent must not hang a command).
    func setReadTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ payload: Data) throws {
        var frame = Data(count: 4)
        let length = UInt32(payload.count)
        for index in 0..<4 { frame[index] = UInt8(truncatingIfNeeded: length >> (24 - 8 * UInt32(index))) }
        frame.append(payload)
        defer { wipe(&frame) }
        try frame.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.send(descriptor, bytes.baseAddress!.advanced(by: offset), bytes.count - offset,
                                         Int32(MSG_NOSIGNAL))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw AgentError.protocolError("the connection closed while sending") }
                offset += written
            }
        }
    }

    /// The next frame, or nil at a clean end of the connection.
    func receive() throws -> Data? {
        guard let header = try read(count: 4, endAllowed: true) else { return nil }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= Self.maximumFrame else { throw AgentError.protocolError("a frame of \(length) bytes") }
        return try read(count: length, endAllowed: false)
    }

    private func read(count: Int, endAllowed: Bool) throws -> Data? {
        var data = Data(count: count)
        var offset = 0
        while offset < count {
            let got = data.withUnsafeMutableBytes { bytes in
                recv(descriptor, bytes.baseAddress!.advanced(by: offset), count - offset, 0)
            }
            if got < 0 && errno == EINTR { continue }
            if got == 0 && offset == 0 && endAllowed { return nil }
            guard got > 0 else {
                let reason = got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? "it did not answer in time" : "the connection closed"
                throw AgentError.protocolError(reason)
            }
            offset += got
        }
        return data
    }

    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw AgentError.unusable("The agent socket path \(path) is longer than \(capacity - 1) bytes; set XDG_RUNTIME_DIR or TMPDIR to a shorter directory.")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
