import Foundation

/// The XML `keepassxc-cli export --format xml` writes (KeePass 2's XML; KeePass 2's own XML
/// export reads the same).
///
/// Each entry is a login: Title, UserName, Password, URL and Notes fill their fields, `otp` (an
/// `otpauth://` URI) the TOTP, `KP2A_URL…` (KeePassXC's additional URLs) more origins; every other
/// string is a custom field, hidden when KeePass protects it in memory (`ProtectInMemory="True"`).
/// The groups below the database's top group, then the entry's own tags, are the tags. The
/// entry's past versions (`History`) become its history, the newest `Item.historyLimit`, each a
/// patch from one version to the one before it, dated when the newer one was saved. Times are
/// kept (`CreationTime`, `LastModificationTime`, `LastAccessTime`); an expiry, an override URL and
/// Auto-Type sequences go to the notes. Attachments become the item's files (`ImportDraft.files`);
/// one Coffer cannot keep (over 16 MiB, a name that is no file name, past `Attachment.countLimit`
/// or `fileBudget`) is named in the notes instead. A past version's attachments are not kept
/// (an item's history holds its fields, not files). Icons, colours and KeePassXC's plugin data
/// are display settings and are not kept. Entries in the recycle bin (the group
/// `Meta/RecycleBinUUID` names, and the groups inside it) are skipped and counted.
public enum KeePassXCXML {
    /// The drafts of a file and how many entries were skipped for being in the recycle bin.
    public struct Export: Sendable {
        public var drafts: [ImportDraft]
        public var recycled: Int
        /// Attachments the file names without their bytes (`missingData`).
        public var filesLeftOut = 0
    }

    public static func drafts(_ data: Data, file: String) throws(CoreError) -> [ImportDraft] {
        try read(data, file: file).drafts
    }

    public static func read(_ data: Data, file: String) throws(CoreError) -> Export {
        switch KeePassXMLDocument.read(data) {
        case .success(let document): return export(of: document)
        case .failure(let refusal): throw CoreError.invalidImport(reason: "\(file) \(refusal.reason)")
        }
    }

    /// The drafts of a document read from an XML export or from a KDBX file (`KeePassKDBX`).
    static func export(of document: KeePassXMLDocument) -> Export {
        let recycleBin = document.recycleBinUUID
        var drafts: [ImportDraft] = []
        var recycled = 0
        var filesLeftOut = 0
        for (index, entry) in document.entries.enumerated() {
            let groups = path(of: entry.group, in: document)
            if !recycleBin.isEmpty && groups.contains(where: { $0.uuid == recycleBin }) {
                recycled += 1
                continue
            }
            let title = entry.current.strings.first { $0.key == "Title" }?.value ?? ""
            var ids: [String: String] = [:]
            var draft = draft(of: entry.current, place: "entry \(index + 1) (\(title.prefix(40)))", document: document, ids: &ids)
            // The top group is the database itself ("Passwords", "Root"): the tags are the groups below it.
            for group in groups.dropFirst() { draft.addTag(group.name) }
            for tag in entry.current.tags.split(whereSeparator: { $0 == ";" || $0 == "," }) { draft.addTag(String(tag)) }
            draft.history = history(of: entry.current, document: document, ids: &ids)
            drafts.append(draft)
            if document.binaries.isEmpty { filesLeftOut += entry.current.attachments.filter { $0.reference != nil }.count }
        }
        keepWithinBudget(&drafts)
        return Export(drafts: drafts, recycled: recycled, filesLeftOut: filesLeftOut)
    }

    /// Why an attachment of a file without `Meta/Binaries` is not imported. keepassxc-cli writes
    /// a KDBX 4 database's attachments into its binary header only, so its XML export names them
    /// and holds none of their bytes (a KDBX 3.1 database's export holds them).
    public static let missingData = "(its data is not in the file: keepassxc-cli leaves attachments out of a KDBX 4 database's XML; "
        + "`keepassxc-cli attachment-export` saves it and `coffer attach` adds it)"

    /// The most bytes of files one import attaches: a few kilobytes of gzip can stand for 16 MiB,
    /// and one attachment may be named by every entry, so a hostile file could otherwise fill the
    /// disk many times over its own size.
    public static let fileBudget = 1 << 30

    /// Moves the files past `fileBudget`, in the file's order, to the notes.
    static func keepWithinBudget(_ drafts: inout [ImportDraft]) {
        var total = 0
        for index in drafts.indices {
            var kept: [ImportedFile] = []
            for file in drafts[index].files {
                total += file.size
                if total <= fileBudget {
                    kept.append(file)
                } else {
                    drafts[index].extraNotes.append("Attachment not imported: \(file.name) (the import's files pass 1 GiB in all)")
                }
            }
            drafts[index].files = kept
        }
    }

    /// The groups from the top one down to `index`.
    static func path(of index: Int, in document: KeePassXMLDocument) -> [KeePassXMLDocument.Group] {
        var path: [KeePassXMLDocument.Group] = []
        var next: Int? = index
        while let current = next, document.groups.indices.contains(current), path.count < KeePassXMLDocument.depthLimit {
            path.insert(document.groups[current], at: 0)
            next = document.groups[current].parent
        }
        return path
    }

    /// One version of an entry as a draft. `ids` gives a custom field the id it had in another
    /// version of the same entry, so history patches compare the fields one by one.
    static func draft(of version: KeePassXMLDocument.Version, place: String, document: KeePassXMLDocument,
                      ids: inout [String: String]) -> ImportDraft {
        var draft = ImportDraft(place: place)
        var seen = Set<String>()
        var totpSeed = "", totpSettings = ""
        for (key, value, isProtected) in version.strings where seen.insert(key).inserted {
            switch key {
            case "Title": draft.title = value
            case "UserName": draft.username = value
            case "Password": draft.password = value
            case "URL": draft.addOrigin(value)
            case "Notes": draft.notes = value
            case "otp": draft.totp = value
            // KeePassXC before 2.6 (and its KeeOTP-style fields): a base32 seed and "period;digits".
            case "TOTP Seed": totpSeed = value
            case "TOTP Settings": totpSettings = value
            case _ where key.hasPrefix("KP2A_URL"): draft.addOrigin(value)
            // A passkey's parts (its private key is protected; the user handle and credential id are
            // not, but with the key they sign in as the user): hidden fields, until Coffer has passkeys.
            case _ where key.hasPrefix("KPEX_PASSKEY_"):
                let id = ids[key] ?? Item.newID()
                ids[key] = id
                draft.addCustom(key, value, type: .hidden, id: id)
            default:
                let id = ids[key] ?? Item.newID()
                ids[key] = id
                draft.addCustom(key, value, type: isProtected ? .hidden : .text, id: id)
            }
        }
        if draft.totp.isEmpty && !totpSeed.isEmpty { draft.totp = otpauth(seed: totpSeed, settings: totpSettings) }
        draft.created = time(version.times["CreationTime"])
        draft.modified = time(version.times["LastModificationTime"])
        draft.lastUsed = time(version.times["LastAccessTime"])
        if version.times["Expires"]?.lowercased() == "true" {
            draft.note("Expires", time(version.times["ExpiryTime"])?.iso8601 ?? version.times["ExpiryTime"] ?? "")
        }
        draft.note("Override URL", version.overrideURL)
        draft.note("Auto-Type sequence", version.autoTypeSequence)
        for (window, sequence) in version.autoTypeAssociations {
            draft.note("Auto-Type for \(window)", sequence.isEmpty ? "(the default sequence)" : sequence)
        }
        for (name, reference, inline) in version.attachments {
            let binary = reference.map { document.binaries[$0] } ?? inline
            let problem = ImportedFile.nameProblem(name)
                ?? (binary == nil ? (document.binaries.isEmpty ? missingData : "(its data is not in the file)") : nil)
                ?? binary?.problem
                ?? (draft.files.count >= Attachment.countLimit ? "(an item holds at most \(Attachment.countLimit) files)" : nil)
            if let problem {
                draft.extraNotes.append("Attachment not imported: \(name) \(problem)")
            } else if let binary, let stored = binary.stored {
                draft.files.append(ImportedFile(name: name, size: binary.size, stored: stored, isCompressed: binary.isCompressed))
            }
        }
        return draft
    }

    /// The `otpauth://` URI of KeePassXC's older TOTP fields: `TOTP Settings` is "period;digits"
    /// (30;6 when absent), with an algorithm third ("30;8;SHA256"); "S" for digits is Steam's
    /// encoding, which Coffer does not compute (the URI then goes to the notes, `ImportDraft.entry`).
    static func otpauth(seed: String, settings: String) -> String {
        let parts = settings.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let secret = seed.filter { !$0.isWhitespace && $0 != "=" }.uppercased()
        var uri = "otpauth://totp/KeePassXC?secret=\(secret)"
        if parts.count >= 1, let period = Int(parts[0]) { uri += "&period=\(period)" }
        if parts.count >= 2 { uri += parts[1] == "S" ? "&encoder=steam" : "&digits=\(parts[1])" }
        if parts.count >= 3 { uri += "&algorithm=\(parts[2])" }
        return uri
    }

    /// Patches from each version back to the one before it, newest first: the history
    /// `Item.replaceEntry` would have written had each version been saved in Coffer. A version
    /// equal to the one after it (KeePass also saves a version when only the title or URL
    /// changed, which an entry's history does not hold) adds nothing.
    static func history(of current: KeePassXMLDocument.Version, document: KeePassXMLDocument,
                        ids: inout [String: String]) -> [HistoryEntry] {
        let versions = current.history + [current]
        let drafts = versions.map { draft(of: $0, place: "", document: document, ids: &ids) }
        let entries = drafts.map { $0.entry().jsonValue }
        var history: [HistoryEntry] = []
        for newer in stride(from: versions.count - 1, to: 0, by: -1) {
            let patch = MergePatch.diff(from: entries[newer], to: entries[newer - 1])
            if patch == .object([:]) { continue }
            let when = drafts[newer].modified ?? drafts[newer - 1].modified ?? Timestamp(milliseconds: 0)
            history.append(HistoryEntry(created: when, patch: patch))
        }
        return Array(history.prefix(Item.historyLimit))
    }

    /// A KeePass time: base64 of eight little-endian bytes counting seconds from 0001-01-01 (KDBX 4,
    /// what keepassxc-cli writes), or ISO 8601 (KDBX 3.1, KeePass 2's export); nil when neither,
    /// or outside years 0000–9999.
    static func time(_ text: String?) -> Timestamp? {
        guard let text, !text.isEmpty else { return nil }
        if text.count == 12, let bytes = Data(base64Encoded: text), bytes.count == 8 {
            let seconds = bytes.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
            let (unix, overflow) = seconds.subtractingReportingOverflow(62_135_596_800)
            let (milliseconds, overflowAgain) = unix.multipliedReportingOverflow(by: 1_000)
            guard !overflow, !overflowAgain else { return nil }
            let time = Timestamp(milliseconds: milliseconds)
            return time.isStorable ? time : nil
        }
        return ImportDraft.time(iso8601: text)
    }
}
