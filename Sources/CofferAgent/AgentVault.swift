import CofferCore
import Foundation

/// The vault as an unlocked agent holds it: every call is one request over the agent's socket.
///
/// A failure the agent reports is thrown as `AgentFailure`; an answer this client cannot read, or
/// one that does not fit its request, as `AgentError.protocolError`.
public final class AgentVault: @unchecked Sendable {
    /// Replaced when the agent closed it for idling (`request`).
    private var connection: AgentSocket
    private let paths: AgentPaths
    private let connectionLock = NSLock()
    public let status: AgentStatus

    private init(connection: AgentSocket, paths: AgentPaths, status: AgentStatus) {
        self.connection = connection
        self.paths = paths
        self.status = status
    }

    /// The agent holding `vaultPath` unlocked, or nil when none runs. Throws when the socket or its
    /// directory is unsafe (another owner, open modes) or the process answering is not this user's.
    public static func connect(vaultPath: String) throws -> AgentVault? {
        try connect(AgentPaths.forVault(vaultPath))
    }

    /// The agent listening at `paths`; a `renew`, so connecting counts as a use.
    public static func connect(_ paths: AgentPaths) throws -> AgentVault? {
        do {
            let connection = try open(paths)
            guard case .status(let status) = try call(.renew(idle: nil), on: connection), status.vault == paths.vault else {
                throw AgentError.protocolError("it holds another vault")
            }
            return AgentVault(connection: connection, paths: paths, status: status)
        } catch AgentError.absent {
            return nil
        } catch AgentError.protocolError {
            // An agent that closed while we asked (it locked just then) is no agent.
            return nil
        }
    }

    /// The agent's status without counting as a use; nil when none runs.
    public static func status(vaultPath: String) throws -> AgentStatus? {
        try status(AgentPaths.forVault(vaultPath))
    }

    public static func status(_ paths: AgentPaths) throws -> AgentStatus? {
        do {
            try paths.checkSocket()
            let connection = try AgentSocket.connect(to: paths.socket)
            guard connection.peerUID == getuid() else { return nil }
            connection.setReadTimeout(seconds: 10)
            guard case .status(let status) = try call(.status, on: connection) else { return nil }
            return status
        } catch AgentError.absent {
            return nil
        } catch AgentError.protocolError {
            return nil
        }
    }

    /// A connection to this user's agent at `paths`, checked like the first one.
    private static func open(_ paths: AgentPaths) throws -> AgentSocket {
        try paths.checkSocket()
        let connection = try AgentSocket.connect(to: paths.socket)
        guard connection.peerUID == getuid() else {
            throw AgentError.unusable("The process listening at \(paths.socket) is not yours; Coffer will not use it.")
        }
        // A sync through the agent may take a while; a hung agent must not hang us for ever.
        connection.setReadTimeout(seconds: 600)
        return connection
    }

    /// Sends `request` and waits for the answer. The agent closes a connection that stays silent
    /// for its read timeout (a command waiting on an editor or a prompt): such a connection is
    /// replaced before sending, as the agent read nothing from it.
    public func request(_ request: AgentRequest) throws -> AgentResponse {
        try connectionLock.withLock {
            if connection.isClosedByPeer { connection = try Self.open(paths) }
            return try Self.call(request, on: connection)
        }
    }

    /// `request`'s answer as `answer` takes it out; an answer of another kind is a protocol error.
    private func request<Value>(_ request: AgentRequest, _ answer: (AgentResponse) -> Value?) throws -> Value {
        let response = try self.request(request)
        guard let value = answer(response) else {
            throw AgentError.protocolError("it answered \(response.summary) to `\(request.operation.rawValue)`")
        }
        return value
    }

    private static func call(_ request: AgentRequest, on connection: AgentSocket) throws -> AgentResponse {
        var payload = try JSONEncoder().encode(request)
        defer { wipe(&payload) }
        guard payload.count <= AgentSocket.maximumRequest else {
            throw AgentFailure(.other, AgentServer.refusal(payload.count))
        }
        try connection.send(payload)
        guard let frame = try connection.receive() else { throw AgentError.protocolError("it hung up") }
        let response: AgentResponse
        do {
            response = try JSONDecoder().decode(AgentResponse.self, from: frame)
        } catch {
            throw AgentError.protocolError("a malformed answer")
        }
        // The agent's sentence may quote a title or the server (AMBIGUOUS keeps its lines).
        if case .failure(let failure) = response {
            throw AgentFailure(failure.kind, TerminalText.lines(failure.message))
        }
        return response
    }

    // MARK: The agent's life

    /// Restarts the agent's idle clock, under a new limit when `idle` is given (`coffer unlock` again).
    @discardableResult
    public func renew(idle: Double?) throws -> AgentStatus {
        try request(.renew(idle: idle)) { if case .status(let status) = $0 { return status }; return nil }
    }

    /// The agent wipes its keys and exits once it has answered.
    public func lock() throws {
        try request(.lock) { if case .done = $0 { return () }; return nil }
    }

    // MARK: Items (the executable's `ItemVault`)

    public func items(_ query: ItemQuery) throws -> [ListedItem] {
        try request(.items(query)) { if case .items(let listed) = $0 { return listed }; return nil }
    }

    public func item(named name: String) throws -> Item {
        try request(.item(name: name)) { if case .item(let item) = $0 { return item }; return nil }
    }

    public func add(_ item: Item) throws -> Item {
        try request(.add(item)) { if case .item(let item) = $0 { return item }; return nil }
    }

    public func update(_ item: Item, from base: Item) throws -> SavedEdit {
        try request(.update(item, base: base)) { if case .saved(let saved) = $0 { return saved }; return nil }
    }

    public func remove(_ id: String) throws {
        try request(.remove(id: id)) { if case .done = $0 { return () }; return nil }
    }

    public func addAll(_ items: [Item]) throws {
        try request(.addAll(items)) { if case .done = $0 { return () }; return nil }
    }

    public func attach(_ data: Data, named name: String, to itemID: String) throws -> Item {
        try request(.attach(itemID: itemID, name: name, data: data)) { if case .item(let item) = $0 { return item }; return nil }
    }

    public func detach(_ name: String, from itemID: String) throws -> Item {
        try request(.detach(itemID: itemID, name: name)) { if case .item(let item) = $0 { return item }; return nil }
    }

    public func attachmentData(_ name: String, of item: Item) throws -> (Attachment, Data) {
        try request(.attachment(itemID: item.id, name: name)) {
            if case .file(let attachment, let data) = $0 { return (attachment, data) }
            return nil
        }
    }

    /// Now by the vault's corrected clock.
    public func now() throws -> Date {
        try request(.now) { if case .now(let date) = $0 { return date }; return nil }
    }

    // MARK: Sync and devices (the executable's `DeviceControl`)

    public func sync() throws -> SyncOutcome {
        try request(.sync) { if case .sync(let outcome) = $0 { return outcome }; return nil }
    }

    public func devices() throws -> [KnownDevice] {
        try request(.devices) { if case .devices(let devices) = $0 { return devices }; return nil }
    }

    /// Queues `topic` for each device (the next sync sends it).
    public func queue(_ topic: MessageTopic, to deviceIDs: [String]) throws {
        try request(.queueMessage(topic, to: deviceIDs)) { if case .done = $0 { return () }; return nil }
    }

    public func remove(device id: String, rotate: Bool) throws {
        try request(.removeDevice(id: id, rotate: rotate)) { if case .done = $0 { return () }; return nil }
    }
}
