import CofferCore
import CofferTestSupport
import Foundation
import XCTest

/// The form's TOTP field given a PNG's path in a real terminal: saved, the item shows the live code
/// of the QR code's secret; an image without a code leaves the form open with the reason.
extension EndToEndTests {
    func testTheTOTPFieldReadsAQRCodeImageWhenTheFormIsSaved() throws {
        let path = try makeVault(items: [])
        let blank = directory.appendingPathComponent("blank.png").path
        try GreyPNG.encode(width: 32, height: 32, pixels: [UInt8](repeating: 255, count: 1_024)).write(to: URL(fileURLWithPath: blank))
        let code = directory.appendingPathComponent("code.png").path
        let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        try QRImages.encode("otpauth://totp/Bank:alice?secret=\(secret)&issuer=Bank", to: code)
        let tmux = try start(vault: path)
        guard expectScreen(tmux, showing: "is locked") else { return }
        try tmux.type("correct horse")
        try tmux.send("Enter")
        expect(tmux, "The vault is empty")
        try tmux.send("n")
        expect(tmux, "New item · Login")
        try tmux.type("Bank")
        for _ in 0..<3 { try tmux.send("Tab") }  // username, password, TOTP
        try tmux.type(blank)
        try tmux.send("Enter")
        expect(tmux, "No TOTP read from")
        XCTAssertTrue(tmux.screen.contains("New item · Login"), "the form stays open")
        // Replaced by the image that holds a code: saved, and the page shows its live code.
        for _ in 0..<blank.count { try tmux.send("BSpace") }
        try tmux.type(code)
        try tmux.send("Enter")
        expect(tmux, "Saved “Bank”")
        expect(tmux, "s left  (T copies)")
        let now = Date()
        let codes = try [now.addingTimeInterval(-30), now, now.addingTimeInterval(30)].map {
            try Oathtool.totp(base32: secret, algorithm: "sha1", digits: 6, period: 30, at: $0)
        }
        XCTAssertTrue(codes.contains { tmux.screen.contains("\($0.prefix(3)) \($0.suffix(3))") }, "oathtool \(codes):\n\(tmux.screen)")
        try tmux.send("q")
        expect(tmux, "EXIT=0")
    }
}
