import Foundation

/// A KeePass database file (`.kdbx`, KDBX 3.1 and 4.x), read whole (architecture §13).
///
/// `KDBXPayload` opens it (key derivation within bounds, every block checked before use,
/// decryption, gzip within bounds); its inner XML is the document `keepassxc-cli export --format
/// xml` writes, read by the same reader as `keepassxc-xml` (`KeePassXMLDocument`, with its limits
/// on nesting, counts and entities), with protected values revealed by the inner stream (and so
/// hidden fields) and attachments taken from KDBX 4's inner header. What becomes of each entry is
/// `KeePassXCXML`'s: a login, its strings, TOTP, history, tags from groups; the recycle bin skipped.
public enum KeePassKDBX {
    public static func read(_ data: Data, file: String, credentials: KDBXCredentials) throws(CoreError) -> KeePassXCXML.Export {
        let payload: KDBXPayload
        do {
            payload = try KDBXPayload(Array(data), credentials: credentials)
        } catch {
            throw CoreError.invalidImport(reason: "\(file) \(error.reason)")
        }
        var binaries: [String: KeePassXMLDocument.Binary] = [:]
        for (index, bytes) in payload.binaries.enumerated() { binaries[String(index)] = KeePassXMLDocument.Binary(raw: bytes) }
        switch KeePassXMLDocument.read(payload.xml, binaries: binaries, innerStream: payload.innerStream) {
        case .success(let document): return KeePassXCXML.export(of: document)
        case .failure(let refusal): throw CoreError.invalidImport(reason: "\(file)'s inner XML \(refusal.reason)")
        }
    }
}
