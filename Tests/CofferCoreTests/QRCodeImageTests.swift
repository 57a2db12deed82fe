import CofferCore
import CofferTestSupport
import Foundation
import XCTest

/// `QRCodeImage` and `TOTP.uri(fromQRCodePNG:)` on images made by `qrencode`, and on hostile or
/// wrong images: each refused with its reason, none crashing.
final class QRCodeImageTests: XCTestCase {
    private let uri = "otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&algorithm=SHA256&digits=8"

    func testReadsTheURIOfQrencodesImages() throws {
        // qrencode's default (a 1-bit palette), large modules, an inverted transparent background, 16-bit…
        let variants: [[String]] = [[], ["-s", "10", "-l", "H"], ["--background=FFFFFF00"], ["-s", "1", "-m", "1"]]
        for options in variants {
            let png = try QRImages.png(uri, options: options)
            XCTAssertEqual(String(decoding: try QRCodeImage.payload(ofPNG: png), as: UTF8.self), uri, "\(options)")
            XCTAssertEqual(try TOTP.uri(fromQRCodePNG: png, path: "code.png"), uri, "\(options)")
        }
    }

    func testReadsOurOwnGreyPNGOfQrencodesModules() throws {
        let png = QRImages.sideBySide([try QRImages.modules(uri)])
        XCTAssertEqual(try TOTP.uri(fromQRCodePNG: png, path: "code.png"), uri)
    }

    func testRefusesImagesWithoutExactlyOneCode() throws {
        let blank = GreyPNG.encode(width: 64, height: 64, pixels: [UInt8](repeating: 255, count: 64 * 64))
        XCTAssertThrowsError(try QRCodeImage.payload(ofPNG: blank)) { XCTAssertEqual($0 as? QRCodeImage.Problem, .noCode) }
        let two = QRImages.sideBySide([try QRImages.modules(uri), try QRImages.modules("otpauth://totp/b?secret=KRSXG5CTMVRXEZLU")])
        XCTAssertThrowsError(try QRCodeImage.payload(ofPNG: two)) { XCTAssertEqual($0 as? QRCodeImage.Problem, .severalCodes(2)) }
    }

    func testRefusesWhatIsNotAPNGOrTooLarge() throws {
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("text", Data("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP".utf8)),
            ("a JPEG's start", Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46, 0x49, 0x46])),
            ("a PNG cut short", try QRImages.png(uri).prefix(60)),
        ]
        for (name, data) in cases {
            XCTAssertThrowsError(try QRCodeImage.payload(ofPNG: data), name) { error in
                guard case .notPNG = error as? QRCodeImage.Problem else { return XCTFail("\(name): \(error)") }
            }
        }
        // 65,536 × 65,536 announced in a few bytes: refused before a pixel is decoded (or allocated).
        var header = [UInt8](GreyPNG.encode(width: 1, height: 1, pixels: [255]))
        let huge = GreyPNG.chunk("IHDR", [0, 1, 0, 0, 0, 1, 0, 0, 8, 0, 0, 0, 0])
        header.replaceSubrange(8..<33, with: huge)
        XCTAssertThrowsError(try QRCodeImage.payload(ofPNG: Data(header))) { XCTAssertEqual($0 as? QRCodeImage.Problem, .tooLarge) }
    }

    func testRefusesCodesThatHoldNoTOTPURIInOneSentence() throws {
        let cases: [(String, String)] = [
            ("hello", "holds no otpauth://totp/ URI"),
            ("JBSWY3DPEHPK3PXP", "holds no otpauth://totp/ URI"),
            ("otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1", "otpauth://hotp"),
            ("otpauth://totp/x?secret=not-base32", "base32"),
            ("otpauth-migration://offline?data=CgA%3D", "import --format otpauth-migration"),
        ]
        for (payload, mention) in cases {
            XCTAssertThrowsError(try TOTP.uri(fromQRCodePNG: try QRImages.png(payload), path: "x.png"), payload) { error in
                let text = "\(error)"
                XCTAssertTrue(text.hasPrefix("No TOTP read from x.png: ") && text.contains(mention), text)
                XCTAssertTrue(text.hasSuffix(".") && !text.contains("\n") && !text.contains(". "), "one sentence: \(text)")
            }
        }
    }
}
