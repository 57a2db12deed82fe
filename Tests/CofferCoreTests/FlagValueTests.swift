import CofferCore
import XCTest

/// A yes-or-no kind field (an SSH key's "Confirm each use") as stored by any version, and as the
/// command line takes it.
final class FlagValueTests: XCTestCase {
    /// Every spelling an older version's agent confirmed for (yes, true, 1), those its screen let a
    /// person type for yes (y, on), and any other text but a no, read as on: failing safe, a
    /// key asks before each signature rather than not.
    func testWhatOlderVersionsStoredStillMeansWhatItSaid() {
        for stored in ["yes", "true", "1", "YES", "True", "y", "on", " yes\n", "maybe"] {
            XCTAssertTrue(FlagValue.isOn(stored), stored)
        }
        for stored in [nil, "", "no", "NO", "false", "0", "n", "off", " no "] {
            XCTAssertFalse(FlagValue.isOn(stored), String(describing: stored))
        }
        XCTAssertTrue(FlagValue.isOn(FlagValue.on), "what this version writes for yes")
        XCTAssertFalse(FlagValue.isOn(FlagValue.off))
    }

    /// The command line stores "yes" or nothing, and refuses any other spelling.
    func testTheCommandLineTakesOnlyTheNamedSpellings() {
        for given in ["yes", "Y", "true", "on", "1"] { XCTAssertEqual(FlagValue.normalized(given), "yes", given) }
        for given in ["no", "N", "false", "off", "0", ""] { XCTAssertEqual(FlagValue.normalized(given), "", given) }
        for given in ["maybe", "yes please", "2", "oui"] { XCTAssertNil(FlagValue.normalized(given), given) }
    }
}
