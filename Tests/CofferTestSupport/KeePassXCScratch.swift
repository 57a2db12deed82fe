import Foundation
import XCTest

/// A scratch directory for one KeePassXC database, driven with the real `keepassxc-cli`: each
/// command's exit status is asserted, its output returned. Removed with `remove()`.
public struct KeePassXCScratch {
    public let root: URL
    /// The database file's path (not made until a command makes it).
    public let database: String

    public init(prefix: String) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        database = root.appendingPathComponent("test.kdbx").path
    }

    /// Runs `keepassxc-cli ARGUMENTS` with `input` on stdin (the database password first).
    @discardableResult
    public func run(_ arguments: [String], _ input: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try ExternalTool.run("/usr/bin/keepassxc-cli", arguments, stdin: Data(input.utf8))
        XCTAssertEqual(result.status, 0, "keepassxc-cli \(arguments): \(result.errorText)", file: file, line: line)
        return result.outputText
    }

    /// A file in the scratch directory holding `data`; returns its path.
    public func write(_ name: String, _ data: Data) throws -> String {
        let url = root.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    public func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}
