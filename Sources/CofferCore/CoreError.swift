/// What can go wrong in the vault, with the context a user needs to act on it.
///
/// The command line maps these to exit codes (DESIGN §6); `description` is the one sentence shown.
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

    public var description: String {
        switch self {
        case .vaultNotFound(let path):
            return "No vault at \(path); create one with `coffer init`."
        case .vaultExists(let path):
            return "A vault already exists at \(path); nothing was changed."
        case .notAVault(let path, let reason):
            return "\(path) is not a Coffer vault (\(reason))."
        case .cannotCreate(let path, let reason):
            return "Cannot create the vault at \(path): \(reason)."
        case .wrongPassphrase:
            return "Wrong passphrase."
        case .emptyPassphrase:
            return "The passphrase must not be empty."
        case .locked:
            return "The vault is locked."
        case .tampered(let what):
            return "The vault's data was modified or corrupted (\(what)); nothing was decrypted from it."
        case .kdfDowngrade(let memory, let iterations):
            return "Refusing key-derivation parameters below the minimum (memory \(memory / 1_048_576) MiB, "
                + "\(iterations) iterations; at least 64 MiB and 3 are required)."
        case .invalidItem(let id, let problems):
            return "Item \(id) is invalid: " + problems.map(\.description).joined(separator: "; ") + "."
        case .noSuchItem(let id):
            return "No item with id \(id)."
        case .itemKeyMissing(let id):
            return "Item \(id) is waiting for its key from another device; sync again after that device unlocks."
        case .duplicateItem(let id):
            return "An item with id \(id) already exists."
        case .invalidImport(let reason):
            return "Cannot import: \(reason); nothing was imported."
        case .storage(let reason):
            return "The vault file could not be read or written: \(reason)."
        }
    }
}
