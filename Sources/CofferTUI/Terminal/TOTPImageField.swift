import CofferCore
import Foundation

/// The screen's TOTP field given a PNG's path (`/…/code.png`, `~/code.png`): the runtime reads
/// the QR code there when the form is saved and stores the `otpauth://totp/` URI it holds, as
/// `edit --totp-qr` does. `Update` only lets such a path through (`TOTP.imagePath`); reading a
/// file is the runtime's.
enum TOTPImageField {
    /// `item` with the TOTP image its field names replaced by the image's URI; `item` itself when
    /// the field names no image. A problem is the TOTP field's (`entry.totp`), for the form.
    static func resolving(_ item: Item) throws(CoreError) -> Item {
        guard let path = TOTP.imagePath(in: item.entry.totp ?? "") else { return item }
        var data: Data
        do throws(LocalFile.Problem) {
            data = try LocalFile.read(LocalFile.expanded(path), limit: QRCodeImage.fileLimit)
        } catch .tooLarge {
            throw problem("no TOTP read from \(TerminalText.line(path)): it is over \(QRCodeImage.fileLimit >> 20) MiB")
        } catch {
            let sentence = LocalFile.sentence(error, path: path, reading: true)
            throw problem("no TOTP read from \(TerminalText.line(path)): " + (sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence))
        }
        defer { wipe(&data) }
        var resolved = item
        do {
            resolved.entry.totp = try TOTP.uri(fromQRCodePNG: data, path: path)
        } catch {
            let sentence = error.description
            throw problem(sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence)
        }
        return resolved
    }

    private static func problem(_ reason: String) -> CoreError {
        .invalidItem(id: "", problems: [FieldProblem(field: "entry.totp", reason: reason)])
    }
}
