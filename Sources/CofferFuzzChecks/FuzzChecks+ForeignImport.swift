import CofferCore
import Foundation

extension FuzzChecks {
    /// The parsers `foreignImport` picks from, by the input's first byte: new ones go last, so
    /// the seeds and findings of the others keep their selector.
    static let foreignImportParsers: [(name: String, parse: @Sendable (Data) throws -> [ImportDraft])] = [
        ("firefox", { try FirefoxCSV.drafts($0, file: "f") }),
        ("chrome", { try ChromeCSV.drafts($0, file: "f") }),
        ("keepassxc", { try KeePassXCCSV.drafts($0, file: "f") }),
        ("1password", { try OnePasswordCSV.drafts($0, file: "f") }),
        ("bitwarden", { try BitwardenJSON.drafts($0, file: "f") }),
        ("pass", { [PassEntry.draft(path: "dir/entry", text: String(decoding: $0, as: UTF8.self), modified: nil)] }),
        ("keepassxc-xml", { try KeePassXCXML.drafts($0, file: "f") }),
        // Google Authenticator's export as the command reads it (links, or a PNG through libpng and zbar)…
        ("otpauth-migration", { try OTPMigration.drafts($0, file: "f").drafts }),
        // …and its protocol buffer alone, without the base64 the fuzzer would first have to hit.
        ("otpauth-migration-payload", { data in
            do {
                return OTPMigration.drafts(try OTPMigration.accounts(inPayload: Array(data))).drafts
            } catch {
                throw CoreError.invalidImport(reason: "\(error)")
            }
        }),
        // A KDBX file's clear header and key derivation's bounds (nothing derived: a fuzzer's
        // header may ask for a gigabyte)…
        ("kdbx-header", { try KeePassKDBX.checkHeader($0); return [] }),
        // …and what follows the key (inner header, XML, protected values, attachments), wrapped in
        // a file with a valid HMAC, gzipped or not: a fuzzer would never find a block's HMAC.
        ("kdbx-inner", { try KeePassKDBX.readWrapped(inner: Array($0), isCompressed: false).drafts }),
        ("kdbx-inner-gzip", { try KeePassKDBX.readWrapped(inner: Array($0), isCompressed: true).drafts }),
    ]

    /// The format each selector byte picks (modulo their number).
    public static var foreignImportFormats: [String] { foreignImportParsers.map(\.name) }

    /// The other managers' formats (`import --format firefox|…|pass|keepassxc-xml`), one per input: its first
    /// byte picks the parser (modulo their number), the rest is the file. Each refuses with
    /// `invalidImport` or gives drafts whose items are valid and survive the vault, and whose files
    /// open whole.
    public static func foreignImport(_ data: Data) throws {
        guard let selector = data.first else { return }
        let file = Data(data.dropFirst())
        let parsers = foreignImportParsers
        let parser = parsers[Int(selector) % parsers.count]
        let items: [Item]
        let drafts: [ImportDraft]
        do {
            drafts = try parser.parse(file)
            items = try ImportDraft.items(drafts, file: "f", now: importNow)
        } catch let error as CoreError {
            guard case .invalidImport = error else { throw FuzzViolation("\(parser.name) threw \(error)") }
            return
        } catch {
            throw FuzzViolation("\(parser.name) threw \(error), not CoreError.invalidImport")
        }
        // A file a record carries (KeePass attachments) opens to the size it was checked at, within the limit.
        for file in drafts.flatMap(\.files) {
            let bytes = try file.bytes()
            guard bytes.count == file.size, bytes.count <= Attachment.sizeLimit, !file.name.isEmpty, !file.name.contains("/") else {
                throw FuzzViolation("\(parser.name) gave the file \(file.name.prefix(40)) of \(bytes.count) bytes, checked as \(file.size)")
            }
        }
        for (index, item) in items.enumerated() {
            try itemSurvivesVault(item, what: "an item imported from \(parser.name)",
                                  sealing: index == sealedIndex(of: data, among: items.count))
        }
    }
}
