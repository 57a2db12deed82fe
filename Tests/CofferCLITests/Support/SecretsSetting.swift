import Foundation
import XCTest

/// How the secrets commands' tests reach the keys: an agent started by `coffer unlock` (the
/// commands then run with no passphrase source at all, so a success proves the agent answered), or
/// the passphrase file on each command line. Each setting runs beside another process that keeps
/// adding items to the vault.
enum SecretsSetting: CaseIterable {
    case agent, passphrase

    /// The options a command needs in this setting.
    func options(_ vault: TestVault) -> [String] {
        ["--vault", vault.path] + (self == .passphrase ? ["--passphrase-file", vault.passphraseFile] : [])
    }
}

/// Runs `coffer add` in a loop, from another process each time, until stopped: the vault is written
/// while the command under test reads it.
final class BesideWriter: @unchecked Sendable {
    private let lock = NSLock()
    private var isStopping = false
    private var count = 0
    private let done = DispatchSemaphore(value: 0)

    init(_ vault: TestVault) {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ isStopping }) {
                let result = try? CofferProcess.run(["--vault", vault.path, "--passphrase-file", vault.passphraseFile,
                                                     "add", "--title", "beside-\(UUID().uuidString.prefix(8))",
                                                     "--password", "beside"], home: vault.root)
                if result?.status == 0 { lock.withLock { count += 1 } }
            }
            done.signal()
        }
    }

    /// Stops the loop and returns how many items it added (the test checks it wrote at all).
    func stop() -> Int {
        lock.withLock { isStopping = true }
        done.wait()
        return lock.withLock { count }
    }
}

/// The package root (for `Resources/scripts`), found from this file.
enum PackageRoot {
    static var url: URL {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/", !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }

    static func script(_ name: String) -> String { url.appendingPathComponent("Resources/scripts/\(name)").path }
}
