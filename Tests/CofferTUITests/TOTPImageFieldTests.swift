import CofferCore
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferTUI

/// The form's TOTP field given a PNG's path: `Update` lets it through, the runtime's
/// `TOTPImageField` reads the QR code (made by `qrencode`) and stores its URI, or names the
/// problem under the TOTP field.
final class TOTPImageFieldTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-totp-image-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    private func bank(totp: String) -> Item {
        var item = Fixtures.bank
        item.entry.totp = totp
        return item
    }

    func testOnlyAbsoluteOrHomePathsEndingInPNGAreImages() {
        XCTAssertEqual(TOTP.imagePath(in: " /tmp/code.PNG "), "/tmp/code.PNG")
        XCTAssertEqual(TOTP.imagePath(in: "~/Downloads/qr.png"), "~/Downloads/qr.png")
        for text in ["code.png", "JBSWY3DPEHPK3PXP", "otpauth://totp/x.png?secret=JBSWY3DPEHPK3PXP", "/tmp/code.jpg", "~code.png"] {
            XCTAssertNil(TOTP.imagePath(in: text), text)
        }
    }

    func testTheFormLetsAnImagePathThroughAndRefusesOtherText() {
        var form = ItemForm(editing: Fixtures.bank)
        form.texts[.totp] = TextField("~/code.png")
        let (item, problems) = Update.formItem(form, now: FakeClock.start)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(item.entry.totp, "~/code.png")
        form.texts[.totp] = TextField("code.png")
        XCTAssertEqual(Update.formItem(form, now: FakeClock.start).problems.map(\.field), ["entry.totp"])
    }

    func testSavingReadsTheQRCodeAndStoresItsURI() throws {
        let uri = "otpauth://totp/Bank:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Bank"
        let path = directory.appendingPathComponent("bank.png").path
        try QRImages.encode(uri, to: path)
        XCTAssertEqual(try TOTPImageField.resolving(bank(totp: path)).entry.totp, uri)
        // Anything else is left as it is.
        XCTAssertEqual(try TOTPImageField.resolving(bank(totp: "JBSWY3DPEHPK3PXP")), bank(totp: "JBSWY3DPEHPK3PXP"))
    }

    func testAnImageWithoutATOTPCodeIsTheTOTPFieldsProblem() throws {
        let blank = directory.appendingPathComponent("blank.png").path
        try GreyPNG.encode(width: 32, height: 32, pixels: [UInt8](repeating: 255, count: 1_024)).write(to: URL(fileURLWithPath: blank))
        let hello = directory.appendingPathComponent("hello.png").path
        try QRImages.encode("hello", to: hello)
        let cases = [(blank, "holds no QR code"), (hello, "holds no otpauth://totp/ URI"),
                     (directory.appendingPathComponent("missing.png").path, "no TOTP read from")]
        for (path, mention) in cases {
            XCTAssertThrowsError(try TOTPImageField.resolving(bank(totp: path)), path) { error in
                guard case .invalidItem(_, let problems) = error as? CoreError, problems.count == 1 else { return XCTFail("\(error)") }
                XCTAssertEqual(problems[0].field, "entry.totp")
                XCTAssertTrue(problems[0].reason.contains(mention) && !problems[0].reason.hasSuffix("."), problems[0].reason)
                // Placed under the form's TOTP field as one sentence.
                let (field, message) = Update.describe(problems[0], in: ItemForm(editing: Fixtures.bank))
                XCTAssertEqual(field, .totp)
                XCTAssertTrue(message.hasPrefix("No TOTP read from") && message.hasSuffix("."), message)
            }
        }
    }
}
