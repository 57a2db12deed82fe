import CofferFuzzChecks

// The import parser, ItemExchange.parseExport (FuzzChecks.importFile).
// Only the entry point is here, as libFuzzer wants one per binary; the body is FuzzEntry's.

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.testOneInput(bytes, count, target: .importFile)
}
#else
@main
enum Replay {
    static func main() { FuzzEntry.replayCommandLine(.importFile) }
}
#endif
