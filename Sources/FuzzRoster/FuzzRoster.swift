import CofferFuzzChecks

// Shared vaults' roster entries, records and chains (FuzzChecks.roster): the first byte picks the check.
// Only the entry point is here, as libFuzzer wants one per binary; the body is FuzzEntry's.

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.testOneInput(bytes, count, target: .roster)
}
#else
@main
enum Replay {
    static func main() { FuzzEntry.replayCommandLine(.roster) }
}
#endif
