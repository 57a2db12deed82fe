import CSodium

/// Process hardening at start: no core dumps and no ptrace attach (`PR_SET_DUMPABLE` 0).
public enum ProcessHardening {
    @discardableResult
    public static func apply() -> Bool { coffer_harden_process() == 0 }

    /// The `PR_SET_DUMPABLE` half of `apply` alone (it does not outlive an `exec`, unlike the
    /// core limit, so a test can check it in its own process without changing its children).
    @discardableResult
    public static func disableDumping() -> Bool { coffer_disable_dumping() == 0 }

    public static var isDumpable: Bool { coffer_is_dumpable() != 0 }

    /// Takes the crash signals back from the Swift runtime's crash reporter, unless the user asked
    /// for it with `SWIFT_BACKTRACE`: it has a helper read this process's memory and prints the
    /// bytes its registers point at (secrets, perhaps) to stderr, and after a SIGQUIT or SIGABRT
    /// it was seen to hang instead of exiting (Tests/CofferCLITests/CoreDumpTests.swift).
    public static func removeCrashReporter() {
        guard getenv("SWIFT_BACKTRACE") == nil else { return }
        coffer_default_crash_signals()
    }
}
