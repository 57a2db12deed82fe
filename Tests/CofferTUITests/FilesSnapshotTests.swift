import CofferCore
import XCTest
@testable import CofferTUI

/// Golden 80×24 frames of an item's files on its detail page (issue 30): one here and one on its
/// way, the cursor on a file, and `w`'s question of the path.
final class FilesSnapshotTests: XCTestCase {
    let now = FakeClock.start

    func testDetailWithFiles() {
        let state = FilesUpdateTests.detail()
        let grid = Render.frame(state, size: .standard, now: now)
        assertSnapshot(grid, named: "detail-files")
        XCTAssertTrue(grid.text.contains("▸ Files      scan.pdf  1.2 MB"), grid.text)
        XCTAssertTrue(grid.text.contains("photo.jpg  48.2 kB  (has not arrived from the server yet)"), grid.text)
    }

    /// The item page's hint line names the file keys (w, a, x), also for an item without files:
    /// a had no hint, and w and x were cut at the line's end.
    func testTheHintLineNamesTheFileKeys() {
        let hintLine = { (state: ScreenState) -> String in
            Render.frame(state, size: .standard, now: self.now).text.split(separator: "\n", omittingEmptySubsequences: false)[22].description
        }
        XCTAssertTrue(hintLine(FilesUpdateTests.detail()).contains("w/a/x files"), hintLine(FilesUpdateTests.detail()))
        var withoutFiles = Fixtures.unlocked()
        withoutFiles.page = .detail(DetailState(itemID: "a1"))
        XCTAssertTrue(hintLine(withoutFiles).contains("w/a/x files"), hintLine(withoutFiles))
        XCTAssertTrue(hintLine(withoutFiles).contains("? help"), hintLine(withoutFiles))
    }

    /// A file whose name holds terminal controls shows them as text.
    func testAFilesNameGoesThroughTerminalText() {
        var state = FilesUpdateTests.detail()
        var item = FilesUpdateTests.bankWithFiles
        item.attachments[0].name = "evil\u{1B}]52;c;ZXZpbA==\u{07}.pdf"
        if let index = state.items.firstIndex(where: { $0.id == item.id }) { state.items[index] = ScreenItem(item) }
        let text = Render.frame(state, size: .standard, now: now).text
        XCTAssertFalse(text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, text)
    }

    func testSavePrompt() {
        var state = FilesUpdateTests.detail()
        _ = Update.apply(.key(.character("w")), to: &state, now: now)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "detail-files-save-prompt")
    }
}
