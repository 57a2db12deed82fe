import CofferTUI
import Foundation

/// Opt-in timings for `make bench` (Resources/bench/bench.py). With `COFFER_BENCH_TRACE=FILE` the
/// screen's timing observer appends one line per measured event to FILE:
///
///     first-frame EPOCH_MS      the first frame on the terminal (wall clock, to compare with the
///                               moment the driver started the process)
///     unlock MS                 keys ready (the KDF and keystore are done) → list frame drawn
///     key MS                    key read → the next frame drawn
///     all-items MS              keys ready → every item opened (the list fills in behind the first page)
///
/// bench.py parses these lines: keep their format.
final class BenchTrace: ScreenTimingObserver, @unchecked Sendable {
    /// The trace `COFFER_BENCH_TRACE` names, or nil when it is unset or empty (the screen then
    /// skips all timing) or the file cannot be opened.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> BenchTrace? {
        environment["COFFER_BENCH_TRACE"].flatMap { $0.isEmpty ? nil : BenchTrace(path: $0) }
    }

    private let lock = NSLock()
    private let handle: FileHandle
    private var firstFrame = true
    private var keySince: UInt64?
    private var unlockSince: UInt64?
    private var openingSince: UInt64?

    private init?(path: String) {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return nil }
        handle.seekToEndOfFile()
        self.handle = handle
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    func keyRead() { lock.withLock { keySince = BenchTrace.now } }

    func unlockKeysReady() {
        lock.withLock {
            unlockSince = BenchTrace.now
            openingSince = unlockSince
        }
    }

    func allItemsOpened() {
        let now = BenchTrace.now
        guard let since = lock.withLock({ () -> UInt64? in defer { openingSince = nil }; return openingSince }) else { return }
        handle.write(Data(String(format: "all-items %.3f\n", Double(now - since) / 1e6).utf8))
    }

    func frameDrawn(locked: Bool) {
        let now = BenchTrace.now
        var lines: [String] = []
        lock.withLock {
            if firstFrame {
                firstFrame = false
                lines.append(String(format: "first-frame %.3f", Date().timeIntervalSince1970 * 1000))
            }
            if let since = keySince {
                keySince = nil
                lines.append(String(format: "key %.3f", Double(now - since) / 1e6))
            }
            if !locked, let since = unlockSince {
                unlockSince = nil
                lines.append(String(format: "unlock %.3f", Double(now - since) / 1e6))
            }
        }
        for line in lines { handle.write(Data((line + "\n").utf8)) }
    }
}
