import CofferFuzzChecks

// config.toml's reader (FuzzChecks.config): the bytes are the file.
// Only the entry point is here, as libFuzzer wants one per binary; the body is FuzzEntry's.

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.testOneInput(bytes, count, target: .config)
}
#else
@main
enum Replay {
    static func main() { FuzzEntry.replayCommandLine(.config) }
}
#endif
