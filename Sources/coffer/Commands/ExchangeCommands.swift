import ArgumentParser
import CofferCore
import Foundation

/// The formats `import` reads: Coffer's own, and other managers' exports (architecture §13).
enum ExchangeFormat: String, ExpressibleByArgument, CaseIterable {
    case json, firefox, chrome, keepassxc, bitwarden
    case keepassxcXML = "keepassxc-xml"
    case kdbx
    case onePassword = "1password"
    case pass
    case otpauthMigration = "otpauth-migration"
}

/// The formats `export` writes.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case json, csv, kdbx
    case keepassxcXML = "keepassxc-xml"
}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write every item, secrets included, to FILE (created 0600; '-' for stdout).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The file format.") var format: ExportFormat = .json
    @Flag(help: "Export even if some items cannot be read (waiting for their key, or damaged).")
    var skipUnreadable = false
    @Option(help: "kdbx: read the new database's password from this file (its first line).") var passwordFile: String?
    @Flag(help: "kdbx: replace FILE if it exists.") var force = false
    @OptionGroup var kdf: KDFOptions
    @Argument(help: "The file to write.") var file: String

    func validate() throws {
        if format != .kdbx && (passwordFile != nil || force || kdf.kdfMemory != nil || kdf.kdfIterations != nil) {
            throw ValidationError("--password-file, --force, --kdf-memory and --kdf-iterations are for --format kdbx.")
        }
    }

    func run() async throws {
        let vault = try await global.itemVault()
        let listed = try await vault.items(.everything)
        let unreadable = listed.filter { $0.item == nil }.count
        if unreadable > 0 && !skipUnreadable {
            // A backup that silently misses items is worse than none.
            throw CommandFailure("\(unreadable) item(s) cannot be read yet (waiting for a key from another device, "
                + "or damaged), so nothing was exported; sync and retry, or pass --skip-unreadable.")
        }
        let items = listed.compactMap(\.item).sorted { ($0.title, $0.id) < ($1.title, $1.id) }
        var data: Data
        switch format {
        case .json:
            data = Data(try ItemExchange.text(try await Self.exportObjects(items, from: vault), escapingTerminalControls: false).utf8)
            data.append(0x0A)
        case .csv:
            data = Data(ItemCSV.text(items).utf8)
        case .kdbx:
            return try await writeKDBX(items, from: vault)
        case .keepassxcXML:
            data = KeePassKDBXExport.xml(try await Self.keePassEntries(items, from: vault))
        }
        defer { wipe(&data) }
        if file == "-" {
            Output.raw(data)  // an export is for programs: its bytes stay as they are
            return
        }
        try PrivateFile.write(data, to: file, replacing: true)
        Terminal.write("Exported \(items.count) item(s) to \(TerminalText.line(file)).\n")
    }
}

extension ExportCommand {
    /// A KeePass database (KDBX 4: Argon2id at the parameters `init` would choose, or
    /// --kdf-memory/--kdf-iterations; ChaCha20), 0600, never over FILE without --force.
    private func writeKDBX(_ items: [Item], from vault: any ItemVault) async throws {
        guard file != "-" else { throw CommandFailure("A KDBX export is written to a file, not to stdout.") }
        if !force && PrivateFile.exists(file) { throw PrivateFile.Failure.exists(file) }
        let entries = try await Self.keePassEntries(items, from: vault)
        let password = try PassphraseInput.readNew(file: passwordFile, prompt: "Password for \(TerminalText.line(file)): ")
        let parameters = try kdf.parameters()
        var data = try KeePassKDBXExport.write(entries, credentials: KDBXCredentials(password: password),
                                               memory: parameters.memory, iterations: parameters.iterations)
        defer { wipe(&data) }
        try PrivateFile.write(data, to: file, replacing: force)
        Terminal.write("Exported \(items.count) item(s) to \(TerminalText.line(file)) (KDBX 4).\n")
    }

    /// Each item with its files' bytes, for a KeePass file.
    private static func keePassEntries(_ items: [Item], from vault: any ItemVault) async throws -> [KeePassKDBXExport.Entry] {
        var entries: [KeePassKDBXExport.Entry] = []
        for item in items {
            var files: [(name: String, data: Data)] = []
            for attachment in item.attachments {
                do {
                    files.append((attachment.name, try await vault.attachmentData(attachment.id, of: item).1))
                } catch CoreError.attachmentNotHere {
                    throw CommandFailure("The file “\(TerminalText.line(attachment.name))” of “\(TerminalText.line(item.title))” has not "
                        + "arrived from the server yet, so nothing was exported; run `coffer sync` and try again.")
                }
            }
            entries.append(KeePassKDBXExport.Entry(item: item, files: files))
        }
        return entries
    }

    /// Each item's export object, its files' bytes with them (`attachments[].data`, base64): the
    /// export is a whole backup. A file that has not arrived from the server stops the export.
    static func exportObjects(_ items: [Item], from vault: any ItemVault) async throws -> [[String: Any]] {
        var objects: [[String: Any]] = []
        for item in items {
            var object = ItemExchange.exportObject(item)
            if !item.attachments.isEmpty {
                var files: [[String: Any]] = []
                for attachment in item.attachments {
                    var file = ItemExchange.attachmentSummary(attachment)
                    do {
                        file["data"] = try await vault.attachmentData(attachment.id, of: item).1.base64EncodedString()
                    } catch CoreError.attachmentNotHere {
                        throw CommandFailure("The file “\(TerminalText.line(attachment.name))” of “\(TerminalText.line(item.title))” has not "
                            + "arrived from the server yet, so nothing was exported; run `coffer sync` and try again.")
                    }
                    files.append(file)
                }
                object["attachments"] = files
            }
            objects.append(object)
        }
        return objects
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Add the items of FILE; all of them or, on any problem, none.",
        discussion: """
            Formats: json (Coffer's export), firefox, chrome, keepassxc (keepassxc-cli export --format csv), \
            keepassxc-xml (keepassxc-cli export --format xml: custom fields, TOTP, history; the recycle bin \
            skipped), kdbx (a KeePass database itself, KDBX 3.1 or 4: what keepassxc-xml keeps, its attachments and \
            protected values too; asks its password, or --password-file, and --key-file), bitwarden (unencrypted JSON), 1password (1Password 8 CSV), pass (FILE is a \
            password-store directory, decrypted with gpg), otpauth-migration (Google Authenticator's export: a text \
            file of otpauth-migration:// links, one a line, or a PNG image of one of its QR codes; each TOTP account \
            becomes a login). Except for json, an item with the same title, username and \
            password as one in the vault, or as an earlier one in FILE, is skipped as a duplicate.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "The file format.") var format: ExchangeFormat = .json
    @Flag(help: "Print what would be imported and what would be skipped as a duplicate; import nothing.")
    var dryRun = false
    @Option(help: "kdbx: read the database's password from this file (its first line).") var passwordFile: String?
    @Option(help: "kdbx: the database's key file.") var keyFile: String?
    @Argument(help: "The file (for pass, the password-store directory) to read.") var file: String

    func validate() throws {
        if format != .kdbx && (passwordFile != nil || keyFile != nil) {
            throw ValidationError("--password-file and --key-file are for --format kdbx.")
        }
    }

    func run() async throws {
        let progress = ImportProgress()
        let (items, carriedFiles) = try readItems(now: .now(), progress: progress)
        progress.finish()
        let vault = try await global.itemVault()
        var kept = items
        var skipped: [(item: Item, reason: ImportDuplicates.Reason)] = []
        if format != .json {
            // Coffer's own export keeps ids, and a repeated id is refused as before.
            let duplicates = ImportDuplicates(items, existing: try await vault.items(.everything).compactMap(\.item))
            kept = duplicates.kept
            skipped = duplicates.skipped
        }
        if dryRun {
            // Titles come from the file (for pass, from its file names): each on its own line, escaped.
            let line = TerminalText.line
            var text = "Would import \(kept.count) item(s) from \(line(file)) (\(format.rawValue)):\n"
            for item in kept {
                let count = carriedFiles[item.id]?.count ?? 0
                text += "  \(line(item.title))" + (count > 0 ? " (\(count) file\(count == 1 ? "" : "s"))\n" : "\n")
            }
            text += "Would skip \(skipped.count) duplicate(s):"
            for (item, reason) in skipped { text += "\n  \(line(item.title)) (\(reason.rawValue))" }
            Output.line(text)
            return
        }
        try await vault.addAll(kept)
        Terminal.write("Imported \(kept.count) item(s) from \(TerminalText.line(file)) (\(format.rawValue))"
            + (format == .json ? ".\n" : "; skipped \(skipped.count) duplicate(s).\n"))
        let keptIDs = Set(kept.map(\.id))
        try await Self.attach(carriedFiles.filter { keptIDs.contains($0.key) }, to: vault)
    }

    /// A file a record carries: its name and its bytes, read when it is attached (nil: the file
    /// was listed without them).
    typealias CarriedFile = (name: String, bytes: () throws -> Data?)

    /// The files the records carry, kept with their items (each in its own transaction, after
    /// the items', one file's bytes in memory at a time); a file listed without its bytes (`show
    /// --json`'s shape) is only counted.
    private static func attach(_ carriedFiles: [String: [CarriedFile]], to vault: any ItemVault) async throws {
        var kept = 0, withoutBytes = 0
        for (id, files) in carriedFiles.sorted(by: { $0.key < $1.key }) {
            for file in files {
                guard let data = try file.bytes() else {
                    withoutBytes += 1
                    continue
                }
                _ = try await vault.attach(data, named: file.name, to: id)
                kept += 1
            }
        }
        if kept > 0 { Terminal.write("Kept \(kept) file(s) with their items.\n") }
        if withoutBytes > 0 { Terminal.write("\(withoutBytes) file(s) were listed without their bytes and not imported.\n") }
    }

    /// Every item of FILE, checked, or `invalidImport` naming the file and the first bad record.
    /// With the files a JSON export or a KeePass XML file carries, by item id (attached after the
    /// items).
    private func readItems(now: Timestamp, progress: ImportProgress) throws -> (items: [Item], files: [String: [CarriedFile]]) {
        let drafts: [ImportDraft]
        switch format {
        case .json:
            let (items, exported) = try withContents { try ItemExchange.parseExportWithFiles($0, now: now) }
            return (items, exported.mapValues { files in files.map { file in (file.name, { file.data }) } })
        case .pass:
            let store = try PassStore(directory: file).drafts(progress: progress)
            drafts = store.drafts
            if !store.outside.isEmpty {
                Terminal.write("Skipped \(store.outside.count) entr\(store.outside.count == 1 ? "y" : "ies") leading out of the store "
                    + "(symbolic links): \(store.outside.map(TerminalText.line).joined(separator: ", ")).\n")
            }
        case .firefox: drafts = try withContents { try FirefoxCSV.drafts($0, file: file) }
        case .chrome: drafts = try withContents { try ChromeCSV.drafts($0, file: file) }
        case .keepassxc: drafts = try withContents { try KeePassXCCSV.drafts($0, file: file) }
        case .keepassxcXML:
            let export = try withContents { try KeePassXCXML.read($0, file: file) }
            drafts = export.drafts
            Self.report(export)
        case .kdbx:
            let credentials = try kdbxCredentials()
            let export = try withContents { try KeePassKDBX.read($0, file: file, credentials: credentials) }
            drafts = export.drafts
            Self.report(export)
        case .onePassword: drafts = try withContents { try OnePasswordCSV.drafts($0, file: file) }
        case .bitwarden: drafts = try withContents { try BitwardenJSON.drafts($0, file: file) }
        case .otpauthMigration:
            let export = try withContents { try OTPMigration.drafts($0, file: file) }
            drafts = export.drafts
            if !export.skipped.isEmpty {
                Terminal.write("Skipped \(export.skipped.count) account(s) whose codes Coffer does not compute (counter-based "
                    + "HOTP, or MD5): \(export.skipped.map(TerminalText.line).joined(separator: ", ")).\n")
            }
        }
        var items: [Item] = []
        var files: [String: [CarriedFile]] = [:]
        // In slices, for progress: pass reports per file as it decrypts, the others here.
        for start in stride(from: 0, to: drafts.count, by: 1_000) {
            let slice = Array(drafts[start..<min(start + 1_000, drafts.count)])
            let sliceItems = try ImportDraft.items(slice, file: file, now: now)
            for (draft, item) in zip(slice, sliceItems) where !draft.files.isEmpty {
                files[item.id] = draft.files.map { imported in (imported.name, { try imported.bytes() }) }
            }
            items += sliceItems
            if format != .pass { progress.advance(by: slice.count) }
        }
        return (items, files)
    }

    /// The KDBX file's password (from `--password-file`, else asked; empty when the database has
    /// only a key file) and key file.
    private func kdbxCredentials() throws -> KDBXCredentials {
        var keyData: Data?
        if let keyFile {
            do {
                keyData = try InputFile.read(keyFile, limit: InputFile.importLimit)
            } catch {
                throw CoreError.invalidImport(reason: "the key file " + InputFile.reason(error, path: keyFile))
            }
        }
        let password = try PassphraseInput(file: passwordFile).read(prompt: "Password of \(TerminalText.line(file)): ")
        return KDBXCredentials(password: password, keyFile: keyData)
    }

    /// What a KeePass file's import leaves out, on stderr.
    private static func report(_ export: KeePassXCXML.Export) {
        if export.recycled > 0 {
            Terminal.write("Skipped \(export.recycled) entr\(export.recycled == 1 ? "y" : "ies") in the recycle bin.\n")
        }
        if export.filesLeftOut > 0 {
            Terminal.write("\(export.filesLeftOut) attachment(s) are named without their bytes (keepassxc-cli leaves them out of a "
                + "KDBX 4 database's XML): each item's notes name them; `keepassxc-cli attachment-export` saves one and "
                + "`coffer attach` adds it.\n")
        }
    }

    /// Runs `body` on FILE's bytes, wiped afterwards.
    private func withContents<Result>(_ body: (Data) throws -> Result) throws -> Result {
        var data: Data
        do {
            data = try InputFile.read(file, limit: InputFile.importLimit)
        } catch {
            throw CoreError.invalidImport(reason: InputFile.reason(error, path: file))
        }
        defer { wipe(&data) }
        return try body(data)
    }
}

/// "Read N records" on stderr every 1,000 records, only when stderr is a terminal (a log file or a
/// test must not fill with progress lines).
final class ImportProgress: @unchecked Sendable {
    private let isShown = isatty(STDERR_FILENO) != 0
    private var count = 0

    func advance(by records: Int = 1) {
        let before = count / 1_000
        count += records
        if isShown && count / 1_000 > before { Terminal.writeRaw("\rRead \(count) records…") }
    }

    func finish() {
        if isShown && count >= 1_000 { Terminal.writeRaw("\rRead \(count) records.\n") }
    }
}
