import CofferFuzzChecks

// ItemRecord and KeystoreRecord JSON, KeyRing.parse and Timestamp (FuzzChecks.records).
// Only the entry point is here, as libFuzzer wants one per binary; the body is FuzzEntry's.

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.testOneInput(bytes, count, target: .records)
}
#else
@main
enum Replay {
    static func main() { FuzzEntry.replayCommandLine(.records) }
}
#endif
