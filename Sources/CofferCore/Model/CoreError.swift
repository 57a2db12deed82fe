/// What can go wrong in the vault, with the context a user needs to act on it.
///
/// The command line maps these to exit codes (architecture §6); `description` is the one sentence shown.
public enum CoreError: Error, Equatable, CustomStringConvertible {
    case vaultNotFound(path: String)
    case vaultExists(path: String)
    case notAVault(path: String, reason: String)
    case cannotCreate(path: String, reason: String)
    case wrongPassphrase
    case emptyPassphrase
    case locked
    case tampered(what: String)
    case kdfDowngrade(memoryBytes: Int, iterations: Int)
    case invalidItem(id: String, problems: [FieldProblem])
    case noSuchItem(id: String)
    case itemKeyMissing(id: String)
    case duplicateItem(id: String)
    case invalidImport(reason: String)
    case storage(reason: String)
    /// A Coffer vault SQLite cannot read (truncated, overwritten in part).
    case damagedVault(path: String, reason: String)
    /// Another process kept the vault locked longer than the busy timeout.
    case busy
    /// SQLite's locks do not work where the vault lies: several processes would corrupt it.
    case unsafeFilesystem(path: String, kind: String)
    /// Another process removed the item while this edit was being made.
    case removedMeanwhile(id: String, title: String)
    /// No item has this id, id prefix or title (architecture §12).
    case noItemNamed(String)
    /// Several items answer to this name; the candidates are listed for the user to choose.
    case ambiguousName(String, candidates: [ItemNameResolver.Candidate])
    /// An item's `totp` text that yields no code.
    case invalidTOTP(TOTP.Problem)
    /// An image that holds no usable TOTP QR code (`QRCodeImage.Problem` or the URI's `TOTP.Problem`, as text).
    case invalidTOTPImage(path: String, reason: String)
    /// A device message that cannot be sent (too large, no such device, an unverified one).
    case deviceMessage(reason: String)
    /// A file over `Attachment.sizeLimit`.
    case attachmentTooLarge(size: Int)
    /// The item has no file of that name (or id).
    case noSuchAttachment(name: String, title: String)
    /// The file is known from the item but its bytes have not arrived from the server yet.
    case attachmentNotHere(name: String)

    /// The vault file could not be read or written (`storage`: a full disk, an I/O error).
    public var isStorageFailure: Bool {
        if case .storage = self { return true }
        return false
    }

    /// One sentence (AMBIGUOUS: one line per candidate); the text it echoes — names typed, titles,
    /// paths, reasons quoting a file or another library — goes through `TerminalText.line`.
    public var description: String {
        let line = TerminalText.line
        switch self {
        case .vaultNotFound(let path):
            return "No vault at \(line(path)); create one with `coffer init`."
        case .vaultExists(let path):
            return "A vault already exists at \(line(path)); nothing was changed."
        case .notAVault(let path, let reason):
            return "\(line(path)) is not a Coffer vault (\(line(reason)))."
        case .cannotCreate(let path, let reason):
            return "Cannot create the vault at \(line(path)): \(line(reason))."
        case .wrongPassphrase:
            return "Wrong passphrase."
        case .emptyPassphrase:
            return "The passphrase must not be empty."
        case .locked:
            return "The vault is locked."
        case .tampered(let what):
            return "The vault's data was modified or corrupted (\(line(what))); nothing was decrypted from it."
        case .kdfDowngrade(let memory, let iterations):
            return "Refusing key-derivation parameters below the minimum (memory \(memory / 1_048_576) MiB, "
                + "\(iterations) iterations; at least 64 MiB and 3 are required)."
        case .invalidItem(let id, let problems):
            return "Item \(line(id)) is invalid: " + problems.map { line($0.description) }.joined(separator: "; ") + "."
        case .noSuchItem(let id):
            return "No item with id \(line(id))."
        case .itemKeyMissing(let id):
            return "Item \(line(id)) is waiting for its key from another device; sync again after that device unlocks."
        case .duplicateItem(let id):
            return "An item with id \(line(id)) already exists."
        case .invalidImport(let reason):
            return "Cannot import: \(line(reason)); nothing was imported."
        case .storage(let reason):
            return "The vault file could not be read or written: \(line(reason))."
        case .damagedVault(let path, let reason):
            return "The vault at \(line(path)) is damaged (\(line(reason))); restore a backup copy of it, or, if it syncs, "
                + "move it aside and run `coffer join` to download it again."
        case .busy:
            return "The vault is busy: another Coffer process kept it locked for more than 10 seconds; try again."
        case .unsafeFilesystem(let path, let kind):
            return "The vault at \(line(path)) is on a network filesystem (\(line(kind))) where SQLite's locks do not work, so "
                + "two processes could corrupt it; move it to a local disk (or set COFFER_ALLOW_NETWORK_FS=1 to use it anyway)."
        case .removedMeanwhile(let id, let title):
            return "“\(line(title))” (\(line(id))) was removed by another process while it was being edited; nothing was saved "
                + "(`coffer add` keeps your version as a new item)."
        case .noItemNamed(let name):
            return "No item has the id or title “\(TerminalText.name(name, limit: 80))” (`coffer list` shows them)."
        case .ambiguousName(let name, let candidates):
            let lines = Self.aligned(candidates.map { [line($0.title ?? "(unreadable)"), line($0.username ?? ""), line($0.id)] })
            return "“\(TerminalText.name(name, limit: 80))” names \(candidates.count) items; give more of the title, or the id:\n"
                + lines.joined(separator: "\n")
        case .invalidTOTP(let problem):
            return "The TOTP secret is invalid: \(problem)."
        case .invalidTOTPImage(let path, let reason):
            return "No TOTP read from \(line(path)): \(line(reason))."
        case .deviceMessage(let reason):
            return "Cannot send the message: \(line(reason))."
        case .attachmentTooLarge(let size):
            return Attachment.tooLarge(size)
        case .noSuchAttachment(let name, let title):
            return "“\(line(title))” has no file named “\(TerminalText.name(name, limit: 80))” (`coffer attachments` lists them)."
        case .attachmentNotHere(let name):
            return "The file “\(line(name))” has not arrived from the server yet; run `coffer sync` and try again."
        }
    }
}
