import Foundation

/// The body of every fuzz executable, written once; each executable only names its `FuzzTarget`.
///
/// Under `make fuzz` (built with -sanitize=fuzzer and -D COFFER_FUZZ) libFuzzer drives the
/// executable's `LLVMFuzzerTestOneInput`, which calls `testOneInput`. In a normal build the
/// executable is a replayer: `FuzzRecords FILE|DIRECTORY…` runs the same check over each file
/// (a seed corpus, a crash file) and exits 1 on a finding.
public enum FuzzEntry {
    /// One libFuzzer input. A broken invariant becomes a trap, which libFuzzer reports as a crash.
    public static func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int, target: FuzzTarget) -> CInt {
        let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
        do {
            try target.check(data)
        } catch {
            fatalError("\(target.rawValue): \(error)")
        }
        return 0
    }

    /// The replayer's `main`: replays the command line's files and exits with `replay`'s status.
    public static func replayCommandLine(_ target: FuzzTarget) -> Never {
        exit(replay(Array(CommandLine.arguments.dropFirst()), target: target))
    }

    /// The replay mode of a fuzz target: runs its check over each file named in `arguments`
    /// (a directory stands for the files in it) and prints one line per finding.
    ///
    /// - Returns: the exit status: 0 when every file passed, 1 when one broke an invariant,
    ///   2 for a usage or file error. A crash ends the process, as under libFuzzer.
    static func replay(_ arguments: [String], target: FuzzTarget) -> Int32 {
        let paths = arguments.filter { !$0.hasPrefix("-") }
        guard !paths.isEmpty else {
            print("usage: \(target.rawValue) FILE|DIRECTORY… (runs the \(target.rawValue) check over each file; fuzz with make fuzz)")
            return 2
        }
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                print("\(path): no such file")
                return 2
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().filter { !$0.hasPrefix(".") }.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        var failures = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                print("\(file): unreadable")
                return 2
            }
            do {
                try target.check(data)
            } catch {
                failures += 1
                print("\(file): \(error)")
            }
        }
        print("\(target.rawValue): \(files.count) files, \(failures) findings")
        return failures == 0 ? 0 : 1
    }
}