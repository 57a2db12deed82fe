import Foundation

extension TOTP {
    /// The `otpauth://totp/…` URI held by the QR code of a PNG image's bytes, checked (it yields a
    /// code). Anything else — no code, several, a bare secret, an `otpauth://hotp/` URI, a Google
    /// Authenticator export (`import --format otpauth-migration` reads those) — is refused with a
    /// reason (`CoreError.invalidTOTPImage`).
    public static func uri(fromQRCodePNG data: Data, path: String) throws(CoreError) -> String {
        var bytes: [UInt8]
        do {
            bytes = try QRCodeImage.payload(ofPNG: data)
        } catch {
            throw .invalidTOTPImage(path: path, reason: error.description)
        }
        defer { wipe(&bytes) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidTOTPImage(path: path, reason: "its QR code holds bytes that are not text")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.lowercased().hasPrefix("otpauth-migration:") {
            throw .invalidTOTPImage(path: path, reason: "its QR code is a Google Authenticator export of several accounts; "
                + "`coffer import --format otpauth-migration` reads it")
        }
        guard trimmed.lowercased().hasPrefix("otpauth:") else {
            throw .invalidTOTPImage(path: path, reason: "its QR code holds no otpauth://totp/ URI")
        }
        do {
            _ = try TOTP(parsing: trimmed)
        } catch {
            throw .invalidTOTPImage(path: path, reason: error.description)
        }
        return trimmed
    }
}

extension TOTP {
    /// The path a form's TOTP field names when it holds a PNG image's path rather than a secret:
    /// an absolute path or one under `~/`, ending in `.png` (a base32 secret or an `otpauth://`
    /// URI never looks like that). Nil for anything else.
    public static func imagePath(in text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("/") || trimmed.hasPrefix("~/"), trimmed.lowercased().hasSuffix(".png") else { return nil }
        return trimmed
    }
}
