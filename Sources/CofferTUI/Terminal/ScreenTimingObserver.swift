/// Told when the screen reaches the moments a benchmark times, so a trace can measure them while
/// the screen knows nothing of files or environment variables (the executable's `BenchTrace`,
/// enabled by `COFFER_BENCH_TRACE`, is the one implementation).
///
/// Called from the input loop, except `unlockKeysReady`, which comes from the unlock task; so an
/// implementation must be thread-safe and cheap.
public protocol ScreenTimingObserver: Sendable {
    /// A key was read; the next `frameDrawn` ends its timing.
    func keyRead()
    /// The KDF and the keystore are done; the next unlocked `frameDrawn` ends its timing.
    func unlockKeysReady()
    /// A frame is on the terminal; `locked` tells whether it shows a locked page.
    func frameDrawn(locked: Bool)
    /// The unlock has opened every item (the first frame showed only the first few hundred).
    func allItemsOpened()
}

extension ScreenTimingObserver {
    public func allItemsOpened() {}
}
