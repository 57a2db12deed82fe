import CofferFuzzChecks

// ssh-agent messages and OpenSSH key files (FuzzChecks.sshAgent): the first byte picks the check.
// Only the entry point is here, as libFuzzer wants one per binary; the body is FuzzEntry's.

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.testOneInput(bytes, count, target: .sshAgent)
}
#else
@main
enum Replay {
    static func main() { FuzzEntry.replayCommandLine(.sshAgent) }
}
#endif
