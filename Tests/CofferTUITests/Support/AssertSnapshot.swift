import XCTest
@testable import CofferTUI

/// Compares `grid` as text with `Snapshots/<name>.txt` next to the tests. A missing snapshot is
/// recorded and the test fails, so a new screen is always looked at once (delete a file to record
/// it again).
func assertSnapshot(_ grid: Grid, named name: String, file: StaticString = #filePath, line: UInt = #line) {
    // Snapshots/ sits in the test target's folder, whichever subfolder the calling test is in.
    var directory = URL(fileURLWithPath: "\(file)").deletingLastPathComponent()
    while directory.lastPathComponent != "CofferTUITests", directory.pathComponents.count > 1 {
        directory.deleteLastPathComponent()
    }
    let url = directory.appendingPathComponent("Snapshots").appendingPathComponent(name + ".txt")
    let actual = grid.text + "\n"
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            XCTFail("Recorded snapshot \(name) at \(url.path); check it and run again.", file: file, line: line)
        } catch {
            XCTFail("Could not record snapshot \(name): \(error)", file: file, line: line)
        }
        return
    }
    guard actual != expected else { return }
    let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
    var report: [String] = []
    for index in 0..<max(actualLines.count, expectedLines.count) {
        let left = index < actualLines.count ? String(actualLines[index]) : ""
        let right = index < expectedLines.count ? String(expectedLines[index]) : ""
        if left != right { report.append("row \(index)\n  expected: \(right)\n  actual:   \(left)") }
    }
    XCTFail("Snapshot \(name) differs:\n" + report.joined(separator: "\n") + "\n\nWhole frame:\n" + actual,
            file: file, line: line)
}
