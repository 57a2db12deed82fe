import CofferFuzzChecks

// Device records and messages (FuzzChecks.deviceMessages): the first byte picks the check.
// Only the entry point is here, as libFuzzer wants one per binary; the body is FuzzEntry's.

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.testOneInput(bytes, count, target: .deviceMessages)
}
#else
@main
enum Replay {
    static func main() { FuzzEntry.replayCommandLine(.deviceMessages) }
}
#endif
