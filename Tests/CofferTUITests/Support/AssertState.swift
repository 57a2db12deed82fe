import XCTest
@testable import CofferTUI

/// Compares whole states and, when they differ, shows only the lines of their dumps that differ.
func assertState(_ actual: ScreenState, equals expected: ScreenState, file: StaticString = #filePath,
                 line: UInt = #line) {
    guard actual != expected else { return }
    var actualDump = ""
    var expectedDump = ""
    dump(actual, to: &actualDump)
    dump(expected, to: &expectedDump)
    let actualLines = actualDump.split(separator: "\n", omittingEmptySubsequences: false)
    let expectedLines = expectedDump.split(separator: "\n", omittingEmptySubsequences: false)
    var differences: [String] = []
    for index in 0..<max(actualLines.count, expectedLines.count) {
        let left = index < actualLines.count ? String(actualLines[index]) : "<none>"
        let right = index < expectedLines.count ? String(expectedLines[index]) : "<none>"
        if left != right { differences.append("  line \(index):\n    actual:   \(left)\n    expected: \(right)") }
        if differences.count >= 12 { break }
    }
    XCTFail("State differs:\n" + differences.joined(separator: "\n"), file: file, line: line)
}

/// Drives `Update` one event at a time and checks the whole state after each: the expected state
/// is the previous one with the changes the test names. A class, so the changes may read the clock.
final class Driver {
    var state: ScreenState
    var clock = FakeClock()

    init(_ state: ScreenState, clock: FakeClock = FakeClock()) {
        self.state = state
        self.clock = clock
    }

    func send(_ event: ScreenEvent, effects expectedEffects: [Effect] = [], file: StaticString = #filePath,
                       line: UInt = #line, _ change: (inout ScreenState) -> Void = { _ in }) {
        var expected = state
        change(&expected)
        let effects = Update.apply(event, to: &state, now: clock.now)
        assertState(state, equals: expected, file: file, line: line)
        XCTAssertEqual(effects, expectedEffects, "effects", file: file, line: line)
    }

    func press(_ key: Key, effects: [Effect] = [], file: StaticString = #filePath, line: UInt = #line,
                        _ change: (inout ScreenState) -> Void = { _ in }) {
        let now = clock.now
        send(.key(key), effects: effects, file: file, line: line) { state in
            state.lastInput = now
            change(&state)
        }
    }

    /// Types each character of `text` without checking the steps (the caller checks the result).
    func type(_ text: String) {
        for character in text { _ = Update.apply(.key(.character(character)), to: &state, now: clock.now) }
    }
}
