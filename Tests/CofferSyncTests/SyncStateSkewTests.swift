import CofferCore
@testable import CofferSync
import Foundation
import Logging
import XCTest

/// The middle of a sync stores a new clock offset only when it moved past the tolerance (the end
/// of the sync stores it anyway): an idle sync commits once.
final class SyncStateSkewTests: XCTestCase {
    func testANewOffsetWithinTheToleranceIsNotStoredMidSync() throws {
        let directory = try temporaryDirectory(self)
        let database = try VaultDatabase.create(at: directory.appendingPathComponent("v.db").path)
        let logger = Logger(label: "test")
        func skew(_ offset: Int64) -> ClockSkew {
            ClockSkew(low: offset, high: offset + 800, measured: Timestamp(milliseconds: 1_700_000_000_000))
        }
        SyncState.record(skew(10_000), in: database, logger: logger)
        XCTAssertEqual(database.clockSkew?.offsetMilliseconds, 10_000, "the first offset is stored")
        SyncState.record(skew(10_000 + SyncState.skewTolerance), in: database, logger: logger)
        XCTAssertEqual(database.clockSkew?.offsetMilliseconds, 10_000, "within the tolerance: kept")
        SyncState.record(skew(10_000 - SyncState.skewTolerance - 1), in: database, logger: logger)
        XCTAssertEqual(database.clockSkew?.offsetMilliseconds, 10_000 - SyncState.skewTolerance - 1, "past it: stored")
    }
}
