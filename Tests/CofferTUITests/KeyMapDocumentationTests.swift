import Foundation
import XCTest
@testable import CofferTUI

/// The README's Configuration section names every action `[keys]` takes, so none is hidden.
final class KeyMapDocumentationTests: XCTestCase {
    func testTheREADMENamesEveryAction() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        for action in KeyBindings.remappable {
            XCTAssertTrue(text.contains("`\(action.configName)`"), "README does not name \(action.configName)")
        }
    }
}
