import CofferCore
import Foundation

/// The vault as an unlocked agent holds it: every call is one request over the agent's socket.
final class AgentVault: ItemVault, @unchecked Sendable {
    /// Replaced when the agent closed it for idling (`request`).
    private var connection: AgentSocket
    private let paths: AgentPaths
    private let lock = NSLock()
    let status: AgentStatus

    private init(connection: AgentSocket, paths: AgentPaths, status: AgentStatus) {
        self.connection = connection
        self.paths = paths
        self.status = status
    }

    /// The agent holding `vaultPath` unlocked, or nil when none runs. Throws when the socket or its
    /// directory is unsafe (another owner, open modes) or the process answering is not this user's.
    static func connect(vaultPath: String) throws -> AgentVault? {
        let paths = AgentPaths.forVault(vaultPath)
        do {
            let connection = try open(paths)
            let response = try call(AgentRequest(operation: .renew), on: connection)
            guard let status = response.status, status.vault == paths.vault else {
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
    static func status(vaultPath: String) throws -> AgentStatus? {
        let paths = AgentPaths.forVault(vaultPath)
        do {
            try paths.checkSocket()
            let connection = try AgentSocket.connect(to: paths.socket)
            guard connection.peerUID == getuid() else { return nil }
            connection.setReadTimeout(seconds: 10)
            return try call(AgentRequest(operation: .status), on: connection).status
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
    func request(_ request: AgentRequest) throws -> AgentResponse {
        try lock.withLock {
            if connection.isClosedByPeer { connection = try Self.open(paths) }
            return try Self.call(request, on: connection)
        }
    }

    private static func call(_ request: AgentRequest, on connection: AgentSocket) throws -> AgentResponse {
        let payload = try JSONEncoder().encode(request)
        guard payload.count <= AgentSocket.maximumRequest else {
            throw AgentFailure(exitCode: ExitStatus.failure, description: AgentServer.refusal(payload.count))
        }
        try connection.send(payload)
        guard let frame = try connection.receive() else { throw AgentError.protocolError("it hung up") }
        let response: AgentResponse
        do {
            response = try JSONDecoder().decode(AgentResponse.self, from: frame)
        } catch {
            throw AgentError.protocolError("malformed JSON")
        }
        // The agent's sentence may quote a title or the server (AMBIGUOUS keeps its lines).
        if let failure = response.failure {
            throw AgentFailure(exitCode: failure.exitCode, description: TerminalText.lines(failure.message))
        }
        return response
    }

    // MARK: ItemVault

    func items(_ query: ItemQuery) async throws -> [ListedItem] {
        try (try request(AgentRequest(operation: .items, query: query)).listed ?? []).map { try $0.listedItem() }
    }

    func item(named name: String) async throws -> Item {
        try decodedItem(try request(AgentRequest(operation: .item, name: name)))
    }

    func add(_ item: Item) async throws -> Item {
        try decodedItem(try request(AgentRequest(operation: .add, item: try ItemCodec.encode(item))))
    }

    func update(_ item: Item, from base: Item) async throws -> SavedEdit {
        let response = try request(AgentRequest(operation: .update, item: try ItemCodec.encode(item),
                                                base: try ItemCodec.encode(base)))
        return SavedEdit(item: try decodedItem(response), mergedWithNewer: response.mergedWithNewer ?? false,
                         conflicts: response.conflicts ?? [])
    }

    func remove(_ id: String) async throws {
        _ = try request(AgentRequest(operation: .remove, id: id))
    }

    func addAll(_ items: [Item]) async throws {
        _ = try request(AgentRequest(operation: .addAll, items: try items.map(ItemCodec.encode)))
    }

    func now() async throws -> Date {
        guard let milliseconds = try request(AgentRequest(operation: .now)).now else {
            throw AgentError.protocolError("no time in its answer")
        }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    func sync() throws -> SyncOutcome {
        guard let outcome = try request(AgentRequest(operation: .sync)).sync else {
            throw AgentError.protocolError("no sync report in its answer")
        }
        return outcome
    }

    private func decodedItem(_ response: AgentResponse) throws -> Item {
        guard let data = response.item else { throw AgentError.protocolError("no item in its answer") }
        return try ItemCodec.decode(data)
    }
}

/// An error the agent reported: its sentence and the exit code it stands for.
struct AgentFailure: Error, CustomStringConvertible {
    var exitCode: Int32
    var description: String
}
