import CQRCode
import Foundation

/// The one QR code of a PNG image, read with the distribution's libpng and zbar (loaded on the
/// first image, `Sources/CQRCode/shim.h`).
///
/// The bytes are a stranger's: a file over `fileLimit` is refused before it is read (by the
/// caller, with `InputFile`), an image of more than `pixelLimit` pixels before any pixel is
/// decoded. libpng reads every PNG (grey, palette, RGB, alpha, 16-bit, interlaced); other formats
/// (JPEG, a screenshot's WebP) are refused in one sentence. An image with no QR code, or several,
/// is refused too: which one the user meant would be a guess.
public enum QRCodeImage {
    /// Larger than any QR code's screenshot needs (a 4,096 × 4,096 grey PNG of a code is ~100 KB).
    public static let fileLimit = 4 * 1_048_576
    /// 4,096 × 4,096: 16 MiB of grey pixels at most.
    public static let pixelLimit: UInt32 = 4_096 * 4_096
    /// A QR code holds at most 2,953 bytes (version 40, binary, low correction).
    static let payloadLimit = 4_096

    /// Why an image gives no payload, as the end of a sentence.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case librariesMissing
        case notPNG(String)
        case tooLarge
        case noCode
        case severalCodes(Int)
        case scanFailed

        public var description: String {
            switch self {
            case .librariesMissing:
                return "reading a QR code needs libzbar0 and libpng16-16 (apt-get install libzbar0 libpng16-16)"
            case .notPNG(let reason):
                return "it is not a PNG image that can be read (\(reason.isEmpty ? "libpng refused it" : reason)); "
                    + "only PNG is read, so save a screenshot of the code as PNG"
            case .tooLarge:
                return "the image has more than 4,096 × 4,096 pixels"
            case .noCode:
                return "the image holds no QR code that can be read"
            case .severalCodes(let count):
                return "the image holds \(count) QR codes; crop it to the one you mean"
            case .scanFailed:
                return "the QR code reader failed on it"
            }
        }
    }

    /// The bytes of the image's only QR code (for a TOTP, the `otpauth://` URI's UTF-8).
    public static func payload(ofPNG data: Data) throws(Problem) -> [UInt8] {
        var payload = [UInt8](repeating: 0, count: payloadLimit)
        var message = [CChar](repeating: 0, count: 64)
        var length = 0
        let result = data.withUnsafeBytes { image in
            payload.withUnsafeMutableBytes { first in
                coffer_qr_scan_png(image.baseAddress, image.count, pixelLimit,
                                   first.baseAddress?.assumingMemoryBound(to: CChar.self), first.count, &length, &message)
            }
        }
        defer { wipe(&payload) }
        switch Int(result) {
        case COFFER_QR_NOT_LOADED: throw .librariesMissing
        case COFFER_QR_NOT_PNG: throw .notPNG(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        case COFFER_QR_TOO_LARGE: throw .tooLarge
        case COFFER_QR_NO_MEMORY, COFFER_QR_SCAN_FAILED: throw .scanFailed
        case 0: throw .noCode
        case 1: break
        default: throw .severalCodes(Int(result))
        }
        // zbar's own limit is the QR code's; a longer answer would mean a reader gone wrong.
        guard length <= payloadLimit else { throw .scanFailed }
        return Array(payload.prefix(length))
    }
}
