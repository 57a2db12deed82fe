import CofferCore
import Foundation

// ItemRecord and KeystoreRecord JSON, KeyRing.parse and Timestamp (FuzzChecks.records).
//
// Under `make fuzz` (built with -sanitize=fuzzer and -D COFFER_FUZZ) libFuzzer drives
// `LLVMFuzzerTestOneInput`. In a normal build this is a replayer: `FuzzRecords FILE|DIRECTORY…`
// runs the same check over each file (a seed corpus, a crash file) and exits 1 on a finding.

func check(_ data: Data) throws {
    try FuzzChecks.records(data)
}

#if COFFER_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        try check(data)
    } catch {
        fatalError("FuzzRecords: \(error)")
    }
    return 0
}
#else
@main
enum Replay {
    static func main() {
        exit(FuzzChecks.replay(Array(CommandLine.arguments.dropFirst()), name: "FuzzRecords", check: check))
    }
}
#endif
