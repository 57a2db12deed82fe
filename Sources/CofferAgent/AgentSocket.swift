import CofferCore
import Foundation

/// One connected Unix stream socket, carrying length-prefixed frames (4 bytes, big-endian, then
/// the JSON): a frame's end is known without scanning its text.
final class AgentSocket: @unchecked Sendable {
    let descriptor: Int32
    /// The largest request the agent reads (32 MiB). Requests are a few hundred bytes but for
    /// `addAll` (an import: about 530 bytes an item, so some 63,000 items) and `attach` (a file of
    /// 16 MiB is 22.4 MB of base64); a larger one is refused from its length alone, before a byte
    /// of it is read or stored.
    static let maximumRequest = 32 << 20
    /// The largest answer a client reads from the agent (256 MiB): a listing of 100,000 typical
    /// items is about 61 MB (measured: ~613 bytes an item, each item's JSON in base64).
    static let maximumAnswer = 256 << 20
    /// Bytes asked of the kernel at a time.
    private static let readChunk = 1 << 16

    /// What the agent reads from a client, short of a request it can answer.
    enum Incoming {
        case request(Data)
        /// The client hung up between requests.
        case end
        /// The header announced more than `maximumRequest`; nothing more was read.
        case tooLarge(length: Int)
        /// Nothing, or not the whole frame, arrived in time; or the connection broke.
        case stalled
    }

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

    /// Makes a listener's `accept` fail from now on: the server stops taking connections.
    func stopAccepting() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
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

    /// The agent's answer, or nil at a clean end of the connection (the client's side: waits as
    /// long as `setReadTimeout` allows for each read).
    func receive() throws -> Data? {
        guard let header = try read(count: 4, endAllowed: true, until: nil) else { return nil }
        let length = Self.length(of: header)
        guard length <= Self.maximumAnswer else { throw AgentError.protocolError("an answer of \(length) bytes") }
        return try read(count: length, endAllowed: false, until: nil)
    }

    /// The next request (the agent's side). A client gets `seconds` to start one and, from its
    /// first byte, `seconds` more to send the rest: an idle or stalled client cannot hold its
    /// connection (and the thread serving it) for ever.
    func receiveRequest(within seconds: Double) -> Incoming {
        receiveFrame(within: seconds, maximum: Self.maximumRequest)
    }

    /// The next frame of at most `maximum` bytes, with `receiveRequest`'s time limits; the
    /// ssh-agent protocol frames its messages the same way, with a limit of its own.
    func receiveFrame(within seconds: Double, maximum: Int) -> Incoming {
        do {
            guard let first = try read(count: 1, endAllowed: true, until: Date().addingTimeInterval(seconds)) else {
                return .end
            }
            let deadline = Date().addingTimeInterval(seconds)
            guard let rest = try read(count: 3, endAllowed: false, until: deadline) else { return .stalled }
            let length = Self.length(of: first + rest)
            guard length <= maximum else { return .tooLarge(length: length) }
            guard let frame = try read(count: length, endAllowed: false, until: deadline) else { return .stalled }
            return .request(frame)
        } catch {
            return .stalled
        }
    }

    /// True when the other end has closed or sent something unasked. The agent never speaks
    /// first, so on a client's connection this means the agent closed it (it was idle too long).
    var isClosedByPeer: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    private static func length(of header: Data) -> Int {
        header.reduce(0) { $0 << 8 | Int($1) }
    }

    /// `count` bytes (already checked against a limit); nil only at a clean end before the first
    /// byte when `endAllowed`. With a `deadline`, waits no later than it (then throws). The buffer
    /// is reserved whole, so it is never moved (no stray copy of a secret), but its pages are
    /// only touched as bytes arrive.
    private func read(count: Int, endAllowed: Bool, until deadline: Date?) throws -> Data? {
        var data = Data(capacity: count)
        var chunk = [UInt8](repeating: 0, count: min(count, Self.readChunk))
        defer { wipe(&chunk) }
        while data.count < count {
            if let deadline { try wait(until: deadline) }
            let wanted = min(chunk.count, count - data.count)
            let got = chunk.withUnsafeMutableBytes { bytes in recv(descriptor, bytes.baseAddress, wanted, 0) }
            if got < 0 && errno == EINTR { continue }
            if got == 0 && data.isEmpty && endAllowed { return nil }
            guard got > 0 else {
                wipe(&data)
                let reason = got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? "it did not answer in time" : "the connection closed"
                throw AgentError.protocolError(reason)
            }
            data.append(contentsOf: chunk[0..<got])
        }
        return data
    }

    /// Returns once a byte (or the end) can be read; throws when `deadline` passes first.
    private func wait(until deadline: Date) throws {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw AgentError.protocolError("it sent nothing in time") }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1000, Double(Int32.max)).rounded(.up)))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw AgentError.protocolError("the connection broke") }
        }
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
