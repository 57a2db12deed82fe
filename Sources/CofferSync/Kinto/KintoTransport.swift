import CCurl
import Foundation

/// Sends a client's requests through libcurl, loaded on the first one (`CCurl/shim.h` says why),
/// keeping its handles and their connections for the next requests.
///
/// No redirect is followed (credentials go to the configured server only), no authentication
/// challenge is answered (a 401 is returned as it is, and the client calls it `unauthorized`).
final class KintoTransport: @unchecked Sendable {
    let timeout: TimeInterval
    /// The most bytes one answer's body may have; more stops the transfer with `.network`.
    let responseLimit: Int
    private let lock = NSLock()
    /// Handles not in use, each keeping its connections alive.
    private var idle: [UnsafeMutableRawPointer] = []

    /// Where requests block in libcurl: a private concurrent queue, which may outgrow the cores.
    private static let blocking = DispatchQueue(label: "coffer.kinto.requests", qos: .userInitiated, attributes: .concurrent)

    /// 256 MiB: a page of 10,000 records of the largest items still fits; a server sending
    /// gigabytes does not get them into memory.
    static let standardResponseLimit = 256 << 20
    /// Headers are a few hundred bytes.
    static let headerLimit = 1 << 20

    init(timeout: TimeInterval, responseLimit: Int = KintoTransport.standardResponseLimit) {
        self.timeout = timeout
        self.responseLimit = responseLimit
    }

    deinit {
        for handle in idle { coffer_curl_handle_free(handle) }
    }

    /// A load `preload` started and has not finished.
    private static let loading = DispatchGroup()

    /// Starts loading libcurl on another thread, for a command about to sync: its ~6 ms of
    /// dlopen and relocations then overlap opening the vault instead of delaying the first request.
    static func preload() {
        loading.enter()
        blocking.async {
            _ = coffer_curl_load()
            loading.leave()
        }
    }

    /// Waits for a load `preload` started. A process must not exit while another thread is inside
    /// dlopen (its libraries' initializers running): `join` with a mistyped code, refused at once,
    /// died of SIGSEGV about one time in twenty.
    static func finishLoading() {
        loading.wait()
    }

    /// Sends one request and reads the whole answer, whatever its status.
    ///
    /// - Throws: `KintoError.offline` when nothing could be reached, `.network` for any other
    ///   transport failure (a timeout, a dropped connection, libcurl missing), and
    ///   `CancellationError` when the calling task was cancelled.
    func send(_ request: KintoRequest) async throws -> KintoResponse {
        try Task.checkCancellation()
        guard coffer_curl_load() != 0 else {
            throw KintoError.network(message: "libcurl (libcurl.so.4) could not be loaded; install libcurl4 to sync")
        }
        guard let memory = calloc(1, MemoryLayout<coffer_curl_exchange>.stride) else {
            throw KintoError.network(message: "out of memory")
        }
        let exchange = Exchange(pointer: memory.assumingMemoryBound(to: coffer_curl_exchange.self))
        defer { coffer_curl_exchange_free(exchange.pointer) }
        exchange.pointer.pointee.body.limit = responseLimit
        exchange.pointer.pointee.headers.limit = Self.headerLimit
        let code = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
                // curl_easy_perform blocks: off the cooperative pool, on a thread of its own. A
                // dispatch queue, even a private concurrent one, runs no more blocked threads than
                // cores, so an idle sync's three listings at once went two, then one, on two cores.
                let thread = Thread {
                    continuation.resume(returning: self.perform(request, exchange))
                }
                thread.stackSize = 1 << 20
                thread.start()
            }
        } onCancel: {
            exchange.pointer.pointee.cancelled = 1
        }
        let answer = exchange.pointer.pointee
        guard code == Int32(COFFER_CURLE_OK) else { throw failure(code, answer) }
        let body = answer.body.bytes.map { Data(bytes: $0, count: answer.body.count) } ?? Data()
        let headers = answer.headers.bytes.map { Data(bytes: $0, count: answer.headers.count) } ?? Data()
        return KintoResponse(status: answer.status, headers: KintoHeaders(raw: headers), body: body)
    }

    private func perform(_ request: KintoRequest, _ exchange: Exchange) -> Int32 {
        guard let handle = checkOut() else { return Int32(COFFER_CURLE_NOT_LOADED) }
        let lines = request.headers.map { strdup("\($0.key): \($0.value)") }
        defer { lines.forEach { free($0) } }
        let constLines = lines.map { UnsafePointer($0) }
        let milliseconds = Int(max(1, (timeout * 1000).rounded()))
        let code = constLines.withUnsafeBufferPointer { headers in
            let perform = { (body: UnsafeRawPointer?, count: Int) in
                coffer_curl_perform(handle, exchange.pointer, request.httpMethod, request.url.absoluteString,
                                    headers.baseAddress, Int32(headers.count), body, Int64(count), milliseconds)
            }
            guard let body = request.httpBody else { return perform(nil, 0) }
            // An empty body still needs a pointer: libcurl reads "no body" from NULL.
            return body.isEmpty ? perform(UnsafeRawPointer(bitPattern: 1), 0) : body.withUnsafeBytes { perform($0.baseAddress, $0.count) }
        }
        checkIn(handle)
        return code
    }

    private func checkOut() -> UnsafeMutableRawPointer? {
        if let handle = lock.withLock({ idle.popLast() }) { return handle }
        return coffer_curl_handle_new()
    }

    private func checkIn(_ handle: UnsafeMutableRawPointer) {
        lock.withLock { idle.append(handle) }
    }

    private func failure(_ code: Int32, _ answer: coffer_curl_exchange) -> Error {
        if code == Int32(COFFER_CURLE_ABORTED_BY_CALLBACK), answer.cancelled != 0 { return CancellationError() }
        if answer.body.over_limit != 0 || answer.headers.over_limit != 0 {
            let limit = answer.body.over_limit != 0 ? responseLimit : Self.headerLimit
            return KintoError.network(message: "the server's answer passed \(limit) bytes, more than Coffer reads from one request; nothing of it was kept")
        }
        var buffer = answer.error
        let detail = withUnsafeBytes(of: &buffer) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let message = "\(detail.isEmpty ? String(cString: coffer_curl_describe(code)) : detail) (curl \(code))"
        switch code {
        case Int32(COFFER_CURLE_COULDNT_RESOLVE_PROXY), Int32(COFFER_CURLE_COULDNT_RESOLVE_HOST),
             Int32(COFFER_CURLE_COULDNT_CONNECT):
            return KintoError.offline(message: message)
        case Int32(COFFER_CURLE_OPERATION_TIMEDOUT):
            return KintoError.network(message: "no answer within the time limit")
        default:
            return KintoError.network(message: message)
        }
    }

    /// The exchange's memory, shared with the thread that performs it and the cancel handler.
    private struct Exchange: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<coffer_curl_exchange>
    }
}
