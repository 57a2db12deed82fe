import CofferCore
import Foundation

// The item plaintext JSON, ItemCodec.decode (FuzzChecks.itemJSON).
//
// Under `make fuzz` (built with -sanitize=fuzzer and -D COFFER_FUZZ) libFuzzer drives
// `LLVMFuzzerTestOneInput`. In a normal build this is a replayer: `FuzzItemJSON FILE|DIRECTORY…`
// runs the same check over each file (a seed corpus, a crash file) and exits 1 on a finding.

func check(_ data: Data) throws {
    try FuzzChecks.itemJSON(data)
}

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        try check(data)
    } catch {
        fatalError("FuzzItemJSON: \(error)")
    }
    return 0
}
#else
@main
enum Replay {
    static func main() {
        exit(FuzzChecks.replay(Array(CommandLine.arguments.dropFirst()), name: "FuzzItemJSON", check: check))
    }
}
#endif
