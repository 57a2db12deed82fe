import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Resources/scripts/fault-proxy.py` run as a subprocess in front of the test Kinto.
///
/// ```swift
/// let proxy = try FaultProxy(upstream: server)
/// defer { proxy.stop() }   // or call stop() in tearDown
/// try await proxy.setFault(.status500, match: "/batch")
/// let client = try await server.makeClient(server: proxy.url)
/// ```
///
/// The proxy answers one request per connection (`Connection: close`), so every fault hits the
/// request it was meant for. `log()` lists what went through it.
public final class FaultProxy: @unchecked Sendable {
    public enum Mode: String, Sendable, CaseIterable {
        case pass
        case resetBefore = "reset_before"
        case resetAfter = "reset_after"
        case status500 = "status_500"
        case status503RetryAfter = "status_503_retry_after"
        case status401 = "status_401"
        case status404 = "status_404"
        case backoffHeader = "backoff_header"
        case garbledJSON = "garbled_json"
        case truncated
        case delay
        case batch409 = "batch_409"
        case shiftDate = "shift_date"
        case endlessNextPage = "endless_next_page"
        case hugeBody = "huge_body"
        case replaceBody = "replace_body"
    }

    /// One request that went through the proxy.
    public struct Entry: Decodable, Sendable {
        public var method: String
        public var path: String
        public var status: Int?
        public var fault: String
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The proxied API root (`http://127.0.0.1:PORT/v1`).
    public let url: URL
    public let port: Int
    private let process: Process
    private let controlURL: URL
    private let session: URLSession

    /// Starts the proxy in front of `upstream`, a server's API root (`…/v1`).
    public init(upstream: URL) throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // CofferTestSupport
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository
            .appendingPathComponent("Resources/scripts/fault-proxy.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var origin = URLComponents(url: upstream, resolvingAgainstBaseURL: false) ?? URLComponents()
        origin.path = ""
        origin.query = nil
        process.arguments = ["python3", script.path, "--upstream", origin.url?.absoluteString ?? upstream.absoluteString, "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()

        // The first line of stdout is the port, printed once the proxy listens.
        var firstLine = Data()
        while !firstLine.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            firstLine.append(chunk)
        }
        let text = String(decoding: firstLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else {
            process.terminate()
            process.waitUntilExit()
            throw StartFailure(description: "fault-proxy.py did not print its port (got \(text.debugDescription))")
        }
        var components = URLComponents(url: upstream, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.host = "127.0.0.1"
        components.port = port
        guard let url = components.url, let controlURL = URL(string: "http://127.0.0.1:\(port)/__fault__") else {
            process.terminate()
            throw StartFailure(description: "bad proxy URL")
        }
        self.process = process
        self.port = port
        self.url = url
        self.controlURL = controlURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 10
        self.session = URLSession(configuration: configuration)
    }

    deinit {
        stop()
    }

    /// Stops the proxy (idempotent): SIGTERM, then SIGKILL if it is still there after 5 s.
    ///
    /// A child started from a Swift concurrency thread inherits a signal mask that blocks
    /// SIGTERM; the script unblocks it, and SIGKILL covers anything else.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline {
            usleep(20_000)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    /// Makes the next `count` requests whose path contains `match` (after `skip` of them pass)
    /// fail in `mode`; `count` -1 means every one. `seconds` is the delay, `Retry-After` or `Backoff`;
    /// `message` the error body's text for `status500`.
    public func setFault(_ mode: Mode, count: Int = 1, match: String = "", seconds: Double = 1, skip: Int = 0,
                         message: String? = nil) async throws {
        var request = URLRequest(url: controlURL)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        var spec: [String: Any] = ["mode": mode.rawValue, "count": count, "match": match, "seconds": seconds, "skip": skip]
        if let message { spec["message"] = message }
        request.httpBody = try JSONSerialization.data(withJSONObject: spec)
        let (_, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw StartFailure(description: "the proxy refused the fault \(mode.rawValue)")
        }
    }

    /// Every request that went through the proxy, oldest first.
    public func log() async throws -> [Entry] {
        struct State: Decodable { var log: [Entry] }
        let (data, _) = try await session.data(from: controlURL)
        return try JSONDecoder().decode(State.self, from: data).log
    }
}
