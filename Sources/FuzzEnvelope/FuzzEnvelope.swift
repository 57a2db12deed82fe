import CofferFuzzChecks

// Envelope.open on arbitrary bytes, seal/open round trips and bit flips (FuzzChecks.envelope).
// Only the entry point is here, as libFuzzer wants one per binary; the body is FuzzEntry's.

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.testOneInput(bytes, count, target: .envelope)
}
#else
@main
enum Replay {
    static func main() { FuzzEntry.replayCommandLine(.envelope) }
}
#endif
