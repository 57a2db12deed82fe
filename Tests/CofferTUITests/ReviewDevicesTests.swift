import CofferCore
import XCTest
@testable import CofferTUI

/// The review names who made the other side of a field: an edit on this machine (another
/// process, `coffer edit`) is not "other device"; a device of the registry goes by its name,
/// sanitised; an unknown one is "another device".
final class ReviewDevicesTests: XCTestCase {
    let now = FakeClock.start
    let devices = ReviewDevices(currentID: "dev-here", names: ["dev-bob": "Bob's \u{1B}[31mlaptop"])

    /// The Kept column of a username row whose remote side (kept: it is later) was made by `maker`.
    private func keptColumn(remoteBy maker: String, devices: ReviewDevices?) -> String {
        var conflict = FieldConflict(name: .username, local: "fromA", remote: "fromB", chosen: .remote)
        conflict.merged.localStamp = FieldStamp(at: Fixtures.timestamp("2026-12-07T01:23:45.000Z"), by: "dev-here")
        conflict.merged.remoteStamp = FieldStamp(at: Fixtures.timestamp("2026-12-07T01:23:58.000Z"), by: maker)
        var review = ConflictReview(itemID: "a1", title: "GitHub", fields: [conflict])
        review.devices = devices
        var state = Fixtures.unlocked()
        state.page = .review(ReviewState(reviews: [review]))
        let grid = Render.frame(state, size: .standard, now: now)
        return (0..<grid.size.height).map(grid.line).first { $0.contains("username") } ?? ""
    }

    func testAnEditOnThisDeviceIsNotCalledAnotherDevice() {
        let row = keptColumn(remoteBy: "dev-here", devices: devices)
        XCTAssertTrue(row.contains("this device, another"), row)
        XCTAssertFalse(row.contains("other device"), row)
    }

    func testARegisteredDeviceIsNamedThroughTerminalText() {
        let row = keptColumn(remoteBy: "dev-bob", devices: devices)
        XCTAssertTrue(row.contains("Bob's"), row)
        XCTAssertFalse(row.unicodeScalars.contains("\u{1B}"), "an escape reached the screen: \(row)")
    }

    func testAnUnknownDeviceIsAnotherDevice() {
        let row = keptColumn(remoteBy: "dev-unknown", devices: devices)
        XCTAssertTrue(row.contains("another device"), row)
    }

    /// In a shared vault the other side is the person who signed it, by their roster name,
    /// sanitised; someone no longer in the roster is a former member.
    func testASharedVaultsOtherSideIsThePersonWhoSignedIt() {
        let shared = ReviewDevices(currentID: "dev-here", names: [:], members: ["p-bob": "Bob \u{1B}[2J"])
        let bob = shared.otherSide(nil, signer: "p-bob") ?? ""
        XCTAssertTrue(bob.hasPrefix("Bob"), bob)
        XCTAssertFalse(bob.unicodeScalars.contains("\u{1B}"), "an escape reached the screen: \(bob)")
        XCTAssertEqual(shared.otherSide(nil, signer: "p-cat"), "a former member")
        XCTAssertEqual(shared.otherSide(nil), nil, "no signer, no stamp: the generic words")
        var conflict = FieldConflict(name: .username, local: "fromA", remote: "fromB", chosen: .remote)
        conflict.merged.remoteStamp = FieldStamp(at: Fixtures.timestamp("2026-12-07T01:23:58.000Z"), by: "dev-of-bob")
        var review = ConflictReview(itemID: "a1", title: "GitHub", fields: [conflict])
        review.devices = shared
        review.remoteSigner = "p-bob"
        var state = Fixtures.unlocked()
        state.page = .review(ReviewState(reviews: [review]))
        let grid = Render.frame(state, size: .standard, now: now)
        let row = (0..<grid.size.height).map(grid.line).first { $0.contains("username") } ?? ""
        XCTAssertTrue(row.contains("Bob"), row)
        XCTAssertFalse(row.contains("another device"), row)
    }

    /// The devices are read from a real vault: its own id is this device.
    func testTheVaultsOwnIDIsThisDevice() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-review-devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = try Vault.create(at: directory.appendingPathComponent("v.db").path,
                                     passphrase: SecureBuffer(copying: Array("review devices".utf8)),
                                     kdf: .fresh(memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations))
        let devices = await ReviewDevices.read(from: vault)
        XCTAssertEqual(devices?.currentID, try vault.deviceID())
        XCTAssertEqual(devices?.otherSide(FieldStamp(at: Timestamp(milliseconds: 0), by: try vault.deviceID())), "this device, another edit")
    }
}
