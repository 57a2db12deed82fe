import Foundation

/// A file a foreign record carries (a KeePassXC attachment), checked when the file was read and
/// kept as the file holds it, so that an import holds at most one file inflated at a time.
public struct ImportedFile: Sendable {
    public var name: String
    /// Bytes once inflated.
    public var size: Int
    var stored: Data
    var isCompressed: Bool

    /// The file's bytes.
    public func bytes() throws(CoreError) -> Data {
        guard isCompressed else { return stored }
        switch Gzip.inflate(stored, limit: Attachment.sizeLimit) {
        case .success(let bytes): return bytes
        case .failure: throw CoreError.invalidImport(reason: "the attachment “\(name)” could not be uncompressed")
        }
    }

    /// Why a file named `name` cannot be an attachment, or nil: the rules `ItemValidation` holds
    /// an item's attachments to.
    static func nameProblem(_ name: String) -> String? {
        if !ItemValidation.isFileName(name) || name.unicodeScalars.contains(where: { $0.value == 0 }) {
            return "(its name is not a file name)"
        }
        if name.count > ItemValidation.fileNameLimit { return "(its name is over \(ItemValidation.fileNameLimit) characters)" }
        return nil
    }
}
