import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP headers looked up by name regardless of case.
///
/// Kinto's raw answers say `Etag` and `Next-Page`, its batch answers say `ETag` and `Retry-After`
/// inside JSON: every lookup goes through here so the spelling never matters.
package struct KintoHeaders: Sendable, Equatable {
    private var values: [String: String] = [:]

    init() {}

    init(_ response: HTTPURLResponse) {
        for (name, value) in response.allHeaderFields {
            values[String(describing: name).lowercased()] = String(describing: value)
        }
    }

    /// Headers of a batch sub-response: a JSON object of strings.
    init(json: Any?) {
        guard let object = json as? [String: Any] else { return }
        for (name, value) in object {
            values[name.lowercased()] = (value as? String) ?? String(describing: value)
        }
    }

    subscript(name: String) -> String? {
        values[name.lowercased()]
    }

    /// The longest wait a server can impose through `Backoff` or `Retry-After`: a day.
    static let longestWait: TimeInterval = 86_400

    /// A header holding a number of seconds (`Backoff`, `Retry-After`), if present and sane, at
    /// most `longestWait` (`Backoff: 1e300` would otherwise give a deadline that traps when the
    /// vault stores it, and a few digits fewer one it cannot read back).
    package func seconds(_ name: String) -> TimeInterval? {
        guard let text = self[name]?.trimmingCharacters(in: .whitespaces),
              let value = Double(text), value.isFinite, value >= 0 else { return nil }
        return min(value, Self.longestWait)
    }
}

/// One answer from the server, its body read in full.
struct KintoResponse: Sendable {
    var status: Int
    var headers: KintoHeaders
    var body: Data
}

/// The URLSession behind a client: ephemeral, no cache, and a delegate that refuses every
/// authentication challenge.
///
/// Kinto answers a wrong password with `401` and `WWW-Authenticate: Basic`. Left to its default
/// handling, FoundationNetworking then waits forever (no timeout fires); cancelling the challenge
/// makes the task fail at once with `NSURLErrorCancelled`, which `send` reports as `unauthorized`.
final class KintoTransport: Sendable {
    private let session: URLSession
    let timeout: TimeInterval

    init(timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        self.timeout = timeout
        self.session = URLSession(configuration: configuration, delegate: KintoSessionDelegate(),
                                  delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends one request and reads the whole answer, whatever its status.
    ///
    /// - Throws: `KintoError.offline` when nothing could be reached, `.unauthorized` when an
    ///   authentication challenge was refused, `.network` for any other transport failure, and
    ///   `CancellationError` when the calling task was cancelled.
    func send(_ request: URLRequest) async throws -> KintoResponse {
        var request = request
        request.timeoutInterval = timeout
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw Self.map(error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw KintoError.network(message: "the answer was not HTTP")
        }
        return KintoResponse(status: http.statusCode, headers: KintoHeaders(http), body: data)
    }

    private static func map(_ error: Error) -> Error {
        if error is CancellationError || error is KintoError { return error }
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            return KintoError.network(message: nsError.localizedDescription)
        }
        switch nsError.code {
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed,
             NSURLErrorNotConnectedToInternet, NSURLErrorDataNotAllowed, NSURLErrorInternationalRoamingOff:
            return KintoError.offline(message: "\(nsError.localizedDescription) (\(nsError.code))")
        case NSURLErrorCancelled:
            // Our delegate cancels every authentication challenge; a cancelled Swift task is the
            // only other way here.
            if Task.isCancelled { return CancellationError() }
            return KintoError.unauthorized
        case NSURLErrorTimedOut:
            return KintoError.network(message: "no answer within the time limit")
        default:
            return KintoError.network(message: "\(nsError.localizedDescription) (\(nsError.code))")
        }
    }
}

/// Refuses authentication challenges and redirects (credentials go to the configured server only).
private final class KintoSessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
