import CofferCore
import Foundation
import Logging

/// Talks to one account on a Kinto server: the collections of one bucket, the account's own
/// `default` one unless another is named (a shared vault's, architecture §17; §4).
///
/// ```swift
/// let client = KintoClient(server: URL(string: "https://kinto.example/v1")!,
///                          credentials: KintoCredentials(user: "alice", password: "…"))
/// if case .changes(let records, let etag) = try await client.fetchChanges(collection: .items, since: marker) { … }
/// let results = try await client.batch([.create(collection: .items, id: id, record: json)])
/// ```
///
/// Rules the caller must know:
/// - Every method throws `KintoError` (or `CancellationError`); nothing is retried here.
/// - Each answer's `Backoff: N` header, and `Retry-After: N` on 409, 429 and 503, moves
///   `backoffUntil` forward; the caller persists it and waits until then before the next sync.
/// - Writes always carry a precondition, so a stale version can never overwrite a newer one.
public actor KintoClient {
    /// The server's API root, ending in `/v1`.
    public nonisolated let server: URL
    /// The bucket whose collections this client reads and writes.
    public nonisolated let bucket: String
    /// Whether `bucket` is a shared vault's: its writes then take their author's own permissions
    /// off the record (`KintoBatchCoding.prepare`). The account's own, by `default` or by id, is not.
    public nonisolated let bucketIsShared: Bool
    private let credentials: KintoCredentials
    /// This client's account as Kinto names it in permissions (`account:NAME`).
    public nonisolated var accountPrincipal: String { "account:\(credentials.user)" }
    private let transport: KintoTransport
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let fetchLimits: KintoFetchLimits
    private var cachedLimits: KintoServerLimits?
    /// Listings started ahead of their `fetchChanges` (`prefetchChanges`), by collection and marker.
    var prefetched: [String: Task<KintoChanges, Error>] = [:]

    /// The latest time the server asked us to stay away until, if any (never moves backwards).
    public private(set) var backoffUntil: Date?

    /// How far this device's clock is from the server's, from the answers so far (nil before the
    /// first one).
    public private(set) var clockSkew: ClockSkew?

    /// - Parameters:
    ///   - server: the API root, e.g. `http://127.0.0.1:8888/v1` (a trailing `/` is fine).
    ///   - timeout: seconds without any answer before a request fails with `.network`.
    ///   - logger: receives one debug line per request (never a credential).
    ///   - now: the clock used to turn `Backoff`/`Retry-After` seconds into dates.
    ///   - fetchLimits: how many pages, records and seconds one listing may take.
    ///   - responseLimit: the most bytes one answer may have (tests pass small ones).
    ///   - bucket: the bucket (a valid Kinto id); `default` is the account's own.
    ///   - bucketIsShared: whether `bucket` is a shared vault's; nil means any bucket but `default`.
    public init(server: URL, credentials: KintoCredentials, bucket: String = "default", bucketIsShared: Bool? = nil,
                timeout: TimeInterval = 15,
                logger: Logger = Logger(label: "coffer.kinto", factory: { _ in SwiftLogNoOpLogHandler() }),
                now: @escaping @Sendable () -> Date = { Date() }, fetchLimits: KintoFetchLimits = .standard,
                responseLimit: Int = 256 << 20) {
        self.server = server
        self.bucket = bucket
        self.bucketIsShared = bucketIsShared ?? (bucket != "default")
        self.credentials = credentials
        self.transport = KintoTransport(timeout: timeout, responseLimit: responseLimit)
        self.logger = logger
        self.now = now
        self.fetchLimits = fetchLimits
    }

    /// Loads the HTTP library in the background now (see `KintoTransport.preload`).
    public static func preloadTransport() {
        KintoTransport.preload()
    }

    /// Waits for `preloadTransport`'s load to end; call before exiting (`KintoTransport.finishLoading`).
    public static func finishLoadingTransport() {
        KintoTransport.finishLoading()
    }

    // MARK: - Accounts

    /// Creates an account with the accounts plugin (`PUT /v1/accounts/NAME`).
    ///
    /// - Throws: `KintoError.accountExists` when the name is taken, `.unauthorized` when the
    ///   server does not let anyone create accounts, or a transport error.
    public static func createAccount(server: URL, user: String, password: String,
                                     timeout: TimeInterval = 15) async throws {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        guard !user.isEmpty, let name = user.addingPercentEncoding(withAllowedCharacters: allowed) else {
            throw KintoError.network(message: "the account name is empty")
        }
        let url = try Self.endpoint(server, "/accounts/\(name)")
        var request = KintoRequest(url: url)
        request.httpMethod = "PUT"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        // Without this an existing account answers 401 (someone else's record), which would read
        // as a server refusing new accounts.
        request.setValue("*", forHTTPHeaderField: "If-None-Match")
        request.httpBody = try KintoJSON.data(["data": ["password": password]])

        let response = try await KintoTransport(timeout: timeout).send(request)
        switch response.status {
        case 200, 201:
            return
        case 412:
            throw KintoError.accountExists(user: user)
        default:
            throw Self.failure(response, now: Date()) ?? Self.unexpected(response, doing: "creating the account")
        }
    }

    /// Checks the credentials with `GET /v1/`, which names the authenticated user.
    ///
    /// - Returns: the user id the server sees, e.g. `account:alice`.
    /// - Throws: `KintoError.unauthorized` when the server does not recognise the credentials.
    @discardableResult
    public func checkCredentials() async throws -> String {
        let root = try await fetchRoot()
        guard let user = root["user"] as? [String: Any], let id = user["id"] as? String else {
            throw KintoError.unauthorized
        }
        return id
    }

    /// The server's limits from `GET /v1/`, fetched once per client.
    public func serverLimits() async throws -> KintoServerLimits {
        if let cachedLimits { return cachedLimits }
        _ = try await fetchRoot()
        return cachedLimits ?? .kintoDefault
    }

    // MARK: - Reading

    /// Everything changed in `collection` since `marker`, following every page.
    ///
    /// With a marker the request carries `_since=marker` and `If-None-Match: "marker"`, so an
    /// unchanged collection answers 304 (`.notModified`) at once. Without one it lists every live
    /// record (no tombstones). Records come oldest first, one per id (the newest when a record
    /// changed while the pages were read), each as the server's raw JSON object. The returned
    /// `etag` is the marker seen on the first page: changes racing with the paging come again
    /// next time rather than being missed.
    ///
    /// A collection the server does not know (404) has no changes; with the `default_bucket`
    /// plugin that does not happen, as any request there creates the collection.
    ///
    /// A listing that goes past `fetchLimits` (pages, records or time) throws `.network` naming
    /// the limit; nothing of it is returned.
    ///
    /// - Parameter pageSize: records per page (`_limit`); nil leaves the server's default (10,000).
    public func fetchChanges(collection: CollectionName, since marker: String?,
                             pageSize: Int? = nil) async throws -> KintoChanges {
        if pageSize == nil, let early = prefetched.removeValue(forKey: Self.prefetchKey(collection, marker)) {
            return try await early.value
        }
        return try await listChanges(collection: collection, since: marker, pageSize: pageSize)
    }

    /// Starts `fetchChanges(collection:since:)` now, on its own task; the next such call takes its
    /// answer or its error (a 503's `Retry-After` forbids asking again at once), as if it had
    /// been asked then. `join` lists the items while the key is derived: the download and the
    /// KDF each take a core, instead of one after the other.
    public func prefetchChanges(collection: CollectionName, since marker: String?) {
        prefetched[Self.prefetchKey(collection, marker)] = Task {
            try await self.listChanges(collection: collection, since: marker, pageSize: nil)
        }
    }

    /// Drops listings started ahead and not taken (a sync that stopped early, a marker that moved):
    /// a later sync must not take an answer that old. Waits for their requests to end first, so a
    /// sync that returns has nothing of its own still in flight — after a 503's `Retry-After`, no
    /// request of it reaches the server later. They were sent at once, so this adds little.
    public func discardPrefetched() async {
        let tasks = Array(prefetched.values)
        prefetched.removeAll()
        for task in tasks { _ = try? await task.value }
    }

    private static func prefetchKey(_ collection: CollectionName, _ marker: String?) -> String {
        "\(collection.rawValue) since \(marker.map(unquoted) ?? "the start")"
    }

    private func listChanges(collection: CollectionName, since marker: String?,
                             pageSize: Int?) async throws -> KintoChanges {
        try await listChanges(named: collection.rawValue, since: marker, pageSize: pageSize)
    }

    /// The changes of any collection of the default bucket; `fields` limits what each record
    /// brings (`_fields`: the attachment chunks are listed without their data).
    func listChanges(named collection: String, since marker: String?, pageSize: Int?,
                     fields: [String] = []) async throws -> KintoChanges {
        let marker = marker.map(Self.unquoted)
        var query = [URLQueryItem(name: "_sort", value: "last_modified")]
        if !fields.isEmpty { query.append(URLQueryItem(name: "_fields", value: fields.joined(separator: ","))) }
        if let marker { query.append(URLQueryItem(name: "_since", value: marker)) }
        if let pageSize { query.append(URLQueryItem(name: "_limit", value: String(max(1, pageSize)))) }
        let firstURL = try Self.endpoint(server, "/buckets/\(bucket)/collections/\(collection)/records",
                                         query: query)
        var headers: [String: String] = [:]
        if let marker { headers["If-None-Match"] = "\"\(marker)\"" }

        let started = ContinuousClock.now
        var response = try await perform("GET", firstURL, headers: headers)
        switch response.status {
        case 200:
            break
        case 304:
            logger.debug("\(collection): not modified since \(marker ?? "-")")
            return .notModified
        case 404:
            logger.debug("\(collection): no such collection on the server")
            return .changes(records: [], etag: marker ?? "0")
        default:
            throw Self.unexpected(response, doing: "listing \(collection)")
        }
        guard let etagHeader = response.headers["ETag"] else {
            throw KintoError.network(message: "the listing of \(collection) has no ETag")
        }
        let etag = Self.unquoted(etagHeader)

        var records = try Self.listedRecords(response.body)
        var pageURL = firstURL
        var pages = 1
        while let nextPage = response.headers["Next-Page"] {
            if let stop = fetchLimits.exceeded(by: collection, pages: pages + 1, records: records.count,
                                               elapsed: (ContinuousClock.now - started) / .seconds(1)) {
                throw stop
            }
            let nextURL = try nextPageURL(nextPage)
            guard nextURL != pageURL else {
                throw KintoError.network(message: "the listing of \(collection) pages in a loop")
            }
            pageURL = nextURL
            response = try await perform("GET", nextURL)
            guard response.status == 200 else {
                throw Self.unexpected(response, doing: "listing \(collection)")
            }
            records += try Self.listedRecords(response.body)
            pages += 1
        }
        let changes = Self.newestPerID(records)
        logger.debug("\(collection): \(changes.count) changes in \(pages) pages, marker \(etag)")
        return .changes(records: changes.map(\.data), etag: etag)
    }

    // MARK: - Writing

    /// Sends every write in `POST /batch` requests of at most the server's limit, in order.
    ///
    /// Returns one result per request, in the same order; each is acknowledged on its own (a 412
    /// or 404 leaves the others applied). A chunk whose answer holds a 409 or a 5xx is `.unknown`
    /// as a whole. If a later chunk fails in transport, its requests and every one after it are
    /// `.unknown` (the error shows again on the next request); the earlier results stand.
    ///
    /// - Throws: a `KintoError` when the first chunk fails: no write is acknowledged, and some may
    ///   still have been applied (a timeout or a dropped connection after sending), so fetch
    ///   before trusting the local state. Wrong credentials throw `.unauthorized` (Kinto answers
    ///   the batch itself with 200 and each sub-request with 401).
    public func batch(_ requests: [KintoWriteRequest]) async throws -> [KintoWriteResult] {
        guard !requests.isEmpty else { return [] }
        let size = max(1, try await serverLimits().batchMaxRequests)
        var results: [KintoWriteResult] = []
        results.reserveCapacity(requests.count)
        var start = 0
        while start < requests.count {
            let chunk = Array(requests[start..<min(start + size, requests.count)])
            do {
                results += try await sendBatch(chunk)
            } catch let error as KintoError where start > 0 {
                logger.warning("batch interrupted after \(start) of \(requests.count) writes: \(error.userMessage)")
                results += Array(repeating: KintoWriteResult.unknown, count: requests.count - start)
                return results
            }
            start += chunk.count
        }
        return results
    }

    private func sendBatch(_ chunk: [KintoWriteRequest]) async throws -> [KintoWriteResult] {
        var results = [KintoWriteResult?](repeating: nil, count: chunk.count)
        var subRequests: [[String: Any]] = []
        var positions: [Int] = []
        for (position, request) in chunk.enumerated() {
            switch KintoBatchCoding.prepare(request, bucket: bucket, clearingAuthorPermissions: bucketIsShared) {
            case .send(let subRequest):
                subRequests.append(subRequest)
                positions.append(position)
            case .invalid(let message):
                results[position] = .failed(status: 0, message: message)
            }
        }
        if !subRequests.isEmpty {
            let body = try KintoJSON.data(["requests": subRequests])
            let response = try await perform("POST", Self.endpoint(server, "/batch"), body: body)
            guard response.status == 200 else {
                throw Self.unexpected(response, doing: "sending a batch")
            }
            let subResponses = try KintoBatchCoding.subResponses(response.body, expected: subRequests.count)
            for subResponse in subResponses {
                noteBackoff(subResponse.headers, status: subResponse.status)
            }
            // `POST /batch` itself is open to anyone: wrong credentials show as 401 sub-responses,
            // and nothing was applied.
            if subResponses.contains(where: { $0.status == 401 }) {
                throw KintoError.unauthorized
            }
            let isUnknown = KintoBatchCoding.isOutcomeUnknown(subResponses)
            for (index, subResponse) in subResponses.enumerated() {
                results[positions[index]] = isUnknown ? .unknown : KintoBatchCoding.result(subResponse)
            }
            logger.debug("batch of \(subRequests.count): statuses \(subResponses.map(\.status))")
        }
        return results.map { $0 ?? .unknown }
    }

    // MARK: - HTTP

    func fetchRoot() async throws -> [String: Any] {
        let response = try await perform("GET", Self.endpoint(server, "/"))
        guard response.status == 200 else {
            throw Self.unexpected(response, doing: "reading the server's description")
        }
        let root = try KintoJSON.object(response.body, what: "server's description")
        let settings = root["settings"] as? [String: Any]
        if let maximum = KintoJSON.int64(settings?["batch_max_requests"]), maximum > 0 {
            cachedLimits = KintoServerLimits(batchMaxRequests: Int(maximum))
        } else {
            cachedLimits = .kintoDefault
        }
        return root
    }

    /// Sends an authenticated request, records its backoff headers and turns auth, overload and
    /// server failures into errors. Any other status is the caller's to judge.
    func perform(_ method: String, _ url: URL, headers: [String: String] = [:],
                 body: Data? = nil) async throws -> KintoResponse {
        var request = KintoRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
        request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        logger.debug("\(method) \(url.path)")
        let sent = Timestamp(now())
        let response = try await transport.send(request)
        noteClock(response.headers, sent: sent, received: Timestamp(now()))
        noteBackoff(response.headers, status: response.status)
        if let failure = Self.failure(response, now: now()) {
            logger.debug("\(method) \(url.path): HTTP \(response.status)")
            throw failure
        }
        return response
    }

    /// Narrows `clockSkew` by the answer's `Date` (every answer has one, errors and 304s too).
    private func noteClock(_ headers: KintoHeaders, sent: Timestamp, received: Timestamp) {
        guard let text = headers["Date"], let serverDate = HTTPDate.parse(text) else { return }
        let sample = ClockSkew(serverDate: serverDate, sent: sent, received: received)
        clockSkew = clockSkew?.narrowed(by: sample) ?? sample
    }

    private func noteBackoff(_ headers: KintoHeaders, status: Int) {
        var seconds = headers.seconds("Backoff")
        if [409, 429, 503].contains(status), let retryAfter = headers.seconds("Retry-After") {
            seconds = max(seconds ?? 0, retryAfter)
        }
        guard let seconds else { return }
        let until = now().addingTimeInterval(seconds)
        if let current = backoffUntil, current >= until { return }
        logger.debug("server asks to back off for \(Int(seconds)) s")
        backoffUntil = until
    }

    /// The error for statuses that mean the same on every endpoint, or nil.
    private static func failure(_ response: KintoResponse, now: Date) -> KintoError? {
        switch response.status {
        case 401, 403:
            return .unauthorized
        case 429, 503:
            if let retryAfter = response.headers.seconds("Retry-After") {
                return .backoff(until: now.addingTimeInterval(retryAfter))
            }
            return .network(message: "the server is unavailable (HTTP \(response.status))")
        case 500...:
            let detail = Self.bodyMessage(response).map { ": \($0)" } ?? ""
            return .network(message: "server error \(response.status)\(detail)")
        default:
            return nil
        }
    }

    static func unexpected(_ response: KintoResponse, doing activity: String) -> KintoError {
        let detail = bodyMessage(response).map { ": \($0)" } ?? ""
        return .network(message: "unexpected HTTP \(response.status) while \(activity)\(detail)")
    }

    private static func bodyMessage(_ response: KintoResponse) -> String? {
        KintoJSON.errorMessage(try? JSONSerialization.jsonObject(with: response.body, options: []))
    }

    // MARK: - URLs and records

    /// `server` + `path` (which starts with `/`), with an optional query.
    static func endpoint(_ server: URL, _ path: String, query: [URLQueryItem] = []) throws -> URL {
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard var components = URLComponents(string: base + path) else {
            throw KintoError.network(message: "invalid server address \(server.absoluteString)")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else {
            throw KintoError.network(message: "invalid server address \(server.absoluteString)")
        }
        return url
    }

    /// The `Next-Page` link's path and query on our own server: credentials never go elsewhere,
    /// and a reverse proxy that confuses Kinto about its scheme or host does not matter.
    private func nextPageURL(_ link: String) throws -> URL {
        guard let next = URLComponents(string: link),
              var components = URLComponents(url: server, resolvingAgainstBaseURL: false) else {
            throw KintoError.network(message: "malformed Next-Page link")
        }
        components.percentEncodedPath = next.percentEncodedPath
        components.percentEncodedQuery = next.percentEncodedQuery
        guard let url = components.url else {
            throw KintoError.network(message: "malformed Next-Page link")
        }
        return url
    }

    package struct ListedRecord {
        package var id: String
        package var lastModified: Int64
        package var data: Data
    }

    /// The records of one listing page, each keeping its own bytes of the page (one pass; see
    /// `RecordListing`).
    package static func listedRecords(_ body: Data) throws -> [ListedRecord] {
        let entries: [RecordListing.Entry]
        do {
            entries = try RecordListing.entries(of: body)
        } catch {
            throw KintoError.network(message: "the record listing is malformed")
        }
        return entries.map { entry in
            ListedRecord(id: entry.id, lastModified: entry.lastModified,
                         data: body.subdata(in: (body.startIndex + entry.range.lowerBound)..<(body.startIndex + entry.range.upperBound)))
        }
    }

    /// Oldest first, keeping only the newest version of each id.
    package static func newestPerID(_ records: [ListedRecord]) -> [ListedRecord] {
        var newest: [String: ListedRecord] = [:]
        for record in records where (newest[record.id]?.lastModified ?? .min) <= record.lastModified {
            newest[record.id] = record
        }
        return newest.values.sorted { ($0.lastModified, $0.id) < ($1.lastModified, $1.id) }
    }

    static func unquoted(_ tag: String) -> String {
        var tag = tag.trimmingCharacters(in: .whitespaces)
        if tag.hasPrefix("W/") { tag.removeFirst(2) }
        return tag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
}
