/// Why an SSH key, a key file or a signing request was refused; each case says it in one sentence
/// a person can act on.
public enum SSHKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bytes that are not what they claim to be (a truncated blob, a length past the end).
    case malformed(String)
    /// A well-formed key of a type or size Coffer does not take.
    case unsupported(String)
    /// A passphrase-protected key file read without its passphrase.
    case encrypted
    /// The passphrase given does not open the key file.
    case wrongPassphrase
    /// The private half does not match the public half stored beside it.
    case mismatch

    public var description: String {
        switch self {
        case .malformed(let what): return "The SSH key is malformed: \(what)."
        case .unsupported(let what): return "The SSH key is not supported: \(what)."
        case .encrypted: return "The key file is protected by a passphrase, and none was given."
        case .wrongPassphrase: return "The passphrase does not open the key file."
        case .mismatch: return "The SSH key's private and public halves do not match."
        }
    }
}
