import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// One device in a sync test: its own vault file, its own engine, the shared account.
final class Device: @unchecked Sendable {
    static let passphrase = "correct horse battery staple"
    static var fastKDF: KDFParameters {
        .fresh(memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations)
    }

    let name: String
    let vault: Vault
    var engine: SyncEngine
    let clock: TestClock
    /// The bucket it syncs in: `default`, or a shared vault's (`share-…`, `SharedVaultFixture`).
    let bucket: String

    private init(name: String, vault: Vault, client: KintoClient, clock: TestClock) {
        self.name = name
        self.vault = vault
        self.clock = clock
        self.bucket = client.bucket
        self.engine = SyncEngine(vault: vault, client: client, now: { clock.date })
    }

    /// The first device: a new vault, which it pushes on its first sync.
    static func create(_ name: String, in directory: URL, server: URL, credentials: KintoCredentials,
                       clock: TestClock = TestClock()) async throws -> Device {
        let path = directory.appendingPathComponent("\(name).db").path
        let vault = try Vault.create(at: path, passphrase: secret(passphrase), kdf: fastKDF, deviceName: name,
                                     clock: { clock.timestamp })
        let client = KintoClient(server: server, credentials: credentials, timeout: 10, now: { clock.date })
        try SyncAccount(server: server, user: credentials.user, password: credentials.password).save(to: vault.database)
        return Device(name: name, vault: vault, client: client, clock: clock)
    }

    /// Another device joining the vault on the server (as `coffer join` does), then syncing once.
    static func join(_ name: String, in directory: URL, server: URL, credentials: KintoCredentials,
                     passphrase: String = Device.passphrase, clock: TestClock = TestClock()) async throws -> Device {
        let client = KintoClient(server: server, credentials: credentials, timeout: 10, now: { clock.date })
        guard case .changes(let records, _) = try await client.fetchChanges(collection: .keystores, since: nil),
              let first = records.first else {
            XCTFail("no keystore on the server to join")
            throw JoinFailure()
        }
        let keystore = try JSONDecoder().decode(KeystoreRecord.self, from: first)
        let path = directory.appendingPathComponent("\(name).db").path
        let vault = try Vault.join(at: path, keystore: keystore, passphrase: secret(passphrase), deviceName: name,
                                   clock: { clock.timestamp })
        try SyncAccount(server: server, user: credentials.user, password: credentials.password).save(to: vault.database)
        let device = Device(name: name, vault: vault, client: client, clock: clock)
        _ = await device.sync()
        return device
    }

    /// A person's copy of a shared vault (`SharedVaultFixture`), syncing in the vault's bucket.
    static func shared(_ name: String, vault: Vault, server: URL, credentials: KintoCredentials, clock: TestClock) -> Device {
        let client = KintoClient(server: server, credentials: credentials, bucket: vault.sharedVaultID?.bucket ?? "default",
                                 timeout: 10, now: { clock.date })
        return Device(name: name, vault: vault, client: client, clock: clock)
    }

    /// Replaces the engine's client (e.g. to go through a fault proxy, or with other credentials).
    /// The client reads `Backoff`/`Retry-After` deadlines on the device's clock, as the engine does.
    func use(server: URL, credentials: KintoCredentials, timeout: TimeInterval = 5) {
        let client = KintoClient(server: server, credentials: credentials, bucket: bucket, timeout: timeout,
                                 now: { [clock] in clock.date })
        engine = SyncEngine(vault: vault, client: client, now: { [clock] in clock.date })
    }

    @discardableResult
    func sync() async -> SyncReport { await engine.sync() }

    /// Syncs and fails the test unless the sync completed without error.
    func syncExpectingSuccess(file: StaticString = #filePath, line: UInt = #line) async {
        let report = await engine.sync()
        XCTAssertNil(report.error, "\(name): \(report.message ?? "")", file: file, line: line)
    }

    func lock() async { await vault.lock() }

    func unlock(_ passphrase: String = Device.passphrase) async throws {
        try await vault.unlock(passphrase: secret(passphrase))
    }

    @discardableResult
    func add(_ title: String, username: String = "", password: String = "", tags: [String] = [],
             origins: [String] = []) async throws -> Item {
        let item = Item(title: title, origins: origins, tags: tags, entry: Entry(username: username, password: password),
                        created: clock.timestamp)
        return try await vault.add(item)
    }

    @discardableResult
    func edit(_ id: String, _ change: (inout Item) -> Void) async throws -> Item {
        var item = try await vault.item(id)
        change(&item)
        return try await vault.update(item)
    }

    func remove(_ id: String) async throws { try await vault.remove(id) }

    /// Every readable item, by id; an unreadable one fails the test.
    func items() async throws -> [String: Item] {
        var result: [String: Item] = [:]
        for listed in try await vault.listItems() {
            guard let item = listed.item else {
                XCTFail("\(name): item \(listed.id) is not readable: \(listed.state)")
                continue
            }
            result[item.id] = item
        }
        return result
    }

    func status() throws -> VaultStatus { try vault.database.status() }
}

/// Joining found nothing to join (already reported as a failure).
struct JoinFailure: Error {}

func secret(_ text: String) -> SecureBuffer { SecureBuffer(copying: Array(text.utf8)) }

/// A clock tests move by hand; it starts at the real time so server timestamps stay plausible.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date()
    /// Set for a clock that runs: the real time moved by this many seconds.
    private var liveOffset: TimeInterval?

    /// A stopped clock at the real time now; only `advance` moves it.
    init() {}

    /// A clock that runs with the real one, `offset` seconds ahead (negative: behind).
    static func live(offset: TimeInterval = 0) -> TestClock {
        let clock = TestClock()
        clock.liveOffset = offset
        return clock
    }

    var date: Date {
        lock.withLock { liveOffset.map { Date().addingTimeInterval($0) } ?? current }
    }
    var timestamp: Timestamp { Timestamp(date) }

    func advance(_ seconds: TimeInterval) {
        lock.withLock {
            if let offset = liveOffset { liveOffset = offset + seconds } else { current = current.addingTimeInterval(seconds) }
        }
    }
}

/// A temporary directory removed at the end of the test.
func temporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-sync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Asserts that every device holds exactly the same items.
func assertConverged(_ devices: [Device], file: StaticString = #filePath, line: UInt = #line) async throws {
    guard let first = devices.first else { return }
    let reference = try await first.items()
    for device in devices.dropFirst() {
        let items = try await device.items()
        XCTAssertEqual(Set(items.keys), Set(reference.keys), "\(device.name) vs \(first.name): ids", file: file, line: line)
        for (id, item) in reference {
            guard let other = items[id] else { continue }
            XCTAssertEqual(other, item, "\(device.name) vs \(first.name): item \(id)", file: file, line: line)
        }
    }
}

func XCTUnwrapAsync<T>(_ value: @autoclosure () async throws -> T?, file: StaticString = #filePath,
                       line: UInt = #line) async throws -> T {
    let resolved = try await value()
    return try XCTUnwrap(resolved, file: file, line: line)
}
