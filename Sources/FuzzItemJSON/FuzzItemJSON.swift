import CofferFuzzChecks

// The item plaintext JSON, ItemCodec.decode (FuzzChecks.itemJSON).
// Only the entry point is here, as libFuzzer wants one per binary; the body is FuzzEntry's.

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.testOneInput(bytes, count, target: .itemJSON)
}
#else
@main
enum Replay {
    static func main() { FuzzEntry.replayCommandLine(.itemJSON) }
}
#endif
