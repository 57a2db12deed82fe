import Foundation
import XCTest
@testable import CofferCore

/// Shared fixtures: fast KDF parameters, items, temporary directories, error capture.
enum Fixture {
    /// The floor of architecture §2 (≈ 0.1 s per derivation): the cheapest parameters a vault accepts.
    static func fastKDF() -> KDFParameters {
        KDFParameters.fresh(memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations)
    }

    static func passphrase(_ text: String) -> SecureBuffer { SecureBuffer(copying: Array(text.utf8)) }

    static let epoch = Timestamp(milliseconds: 1_767_225_600_000)  // 2026-01-01T00:00:00Z

    static func item(id: String = Item.newID(), title: String = "Example", username: String = "alice",
                     password: String = "hunter2", origins: [String] = ["https://example.com"],
                     tags: [String] = ["work"]) -> Item {
        Item(id: id, title: title, origins: origins, tags: tags,
             entry: Entry(username: username, password: password, notes: "note"), created: epoch)
    }
}

extension XCTestCase {
    /// A fresh directory under the system temporary directory, removed after the test.
    func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("coffer-core-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}


/// Whether `error` is `CoreError.tampered`, whatever it names.
func isTampered(_ error: Error?) -> Bool {
    if case .tampered? = error as? CoreError { return true }
    return false
}

extension SecureBuffer {
    var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}

func hexBytes(_ hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        result.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return result
}

func hexString(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

/// Parses a JSON text (fragments allowed) into a `JSONValue`.
func json(_ text: String) -> JSONValue {
    do {
        return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    } catch {
        XCTFail("not JSON: \(text): \(error)")
        return .null
    }
}

/// A clock the test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Timestamp

    init(_ start: Timestamp = Fixture.epoch) { current = start }

    var now: Timestamp { lock.withLock { current } }

    func advance(milliseconds: Int64) { lock.withLock { current.milliseconds += milliseconds } }

    var function: @Sendable () -> Timestamp { { [self] in self.now } }
}
