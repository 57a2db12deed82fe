import XCTest
@testable import CofferTUI

/// Cells, widths and clipping.
final class GridTests: XCTestCase {
    func testWidthsMatchTheTerminal() {
        XCTAssertEqual(DisplayWidth.of("a" as Character), 1)
        XCTAssertEqual(DisplayWidth.of("🔒" as Character), 2)
        XCTAssertEqual(DisplayWidth.of("⚠" as Character), 1)
        XCTAssertEqual(DisplayWidth.of("⚑" as Character), 1)
        XCTAssertEqual(DisplayWidth.of("中" as Character), 2)
        XCTAssertEqual(DisplayWidth.of("é" as Character), 1, "e + combining acute")
        XCTAssertEqual(DisplayWidth.of("日本の銀行"), 10)
        XCTAssertEqual(DisplayWidth.of("\u{200B}" as Character), 0)
    }

    func testWideCharactersTakeTwoCellsAndLineUp() {
        var grid = Grid(size: Size(width: 10, height: 2))
        XCTAssertEqual(grid.write("銀行ab", x: 0, y: 0), 6)
        XCTAssertEqual(grid[1, 0], .continuation(style: .plain))
        XCTAssertEqual(grid.line(0), "銀行ab")
        grid.write("|", x: 6, y: 0)
        XCTAssertEqual(grid.line(0), "銀行ab|")
    }

    func testAWideCharacterThatDoesNotFitLeavesABlank() {
        var grid = Grid(size: Size(width: 5, height: 1))
        XCTAssertEqual(grid.write("abcd中", x: 0, y: 0), 5)
        XCTAssertEqual(grid.line(0), "abcd")
    }

    func testOverwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var grid = Grid(size: Size(width: 6, height: 1))
        grid.write("中文", x: 0, y: 0)
        grid.write("x", x: 1, y: 0)
        XCTAssertEqual(grid.line(0), " x文")
        grid.write("y", x: 2, y: 0)
        XCTAssertEqual(grid.line(0), " xy")
    }

    func testControlCharactersAreNeverDrawn() {
        var grid = Grid(size: Size(width: 10, height: 1))
        grid.write("a\u{1B}[2Jb", x: 0, y: 0)
        XCTAssertEqual(grid.line(0), "a\u{FFFD}[2Jb")
    }

    func testTruncationCountsColumns() {
        XCTAssertEqual(TextLayout.truncated("日本の銀行", to: 6), "日本…")
        XCTAssertEqual(TextLayout.truncated("short", to: 6), "short")
    }
}
