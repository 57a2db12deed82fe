import CofferCore
import XCTest
@testable import CofferTUI

/// config.toml's [colors]: roles recolour the palette's slots, `enabled = false` turns colour off,
/// an unknown colour is refused with its line and an unknown role is a warning.
final class ScreenColorsTests: XCTestCase {
    private func entry(_ key: String, _ value: ConfigValue, line: Int = 1) -> ConfigDocument.Entry {
        .init(table: "colors", key: key, value: value, line: line)
    }

    func testRolesRecolourTheirSlots() throws {
        let colors = try ScreenColors([entry("warning", .string("Magenta")), entry("error", .string("default"), line: 2)])
        XCTAssertEqual(colors.palette[.yellow], 5)
        XCTAssertEqual(colors.palette[.red], -1)
        XCTAssertEqual(colors.palette[.green], 2, "untouched")
        XCTAssertTrue(colors.isEnabled)
        XCTAssertFalse(try ScreenColors([entry("enabled", .boolean(false))]).isEnabled)
    }

    func testRefusalsAndWarnings() throws {
        XCTAssertThrowsError(try ScreenColors([entry("error", .string("pink"), line: 3)])) { error in
            XCTAssertEqual((error as? ConfigProblem)?.line, 3)
            XCTAssertTrue((error as? ConfigProblem)?.reason.hasPrefix("gives error the colour “pink”, which Coffer does not know") == true)
        }
        XCTAssertThrowsError(try ScreenColors([entry("enabled", .string("no"))]))
        XCTAssertEqual(try ScreenColors([entry("err", .string("red"), line: 4)]).warnings,
                       ["The [colors] of the configuration name “err” (line 4), which is no role "
                        + "(error, success, warning, info, review, accent): ignored."])
    }
}
