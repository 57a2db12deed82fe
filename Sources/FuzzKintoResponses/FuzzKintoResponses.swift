import CofferFuzzChecks

// Kinto answers: POST /batch sub-responses and record listings (KintoFuzzChecks.responses).
// Only the entry point is here, as libFuzzer wants one per binary; the body is FuzzEntry's.

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.testOneInput(bytes, count, target: .kintoResponses)
}
#else
@main
enum Replay {
    static func main() { FuzzEntry.replayCommandLine(.kintoResponses) }
}
#endif
