/// The key types Coffer keeps and signs with: what OpenSSH calls them, and what `--type` takes.
public enum SSHKeyType: String, Sendable, CaseIterable {
    case ed25519
    case ecdsa
    case rsa

    /// The key's name on the wire and in `authorized_keys`.
    public var algorithm: String {
        switch self {
        case .ed25519: return "ssh-ed25519"
        case .ecdsa: return "ecdsa-sha2-nistp256"
        case .rsa: return "ssh-rsa"
        }
    }

    public init?(algorithm: String) {
        guard let type = Self.allCases.first(where: { $0.algorithm == algorithm }) else { return nil }
        self = type
    }

    /// ECDSA's curve name, written inside its blobs.
    static let curveName = "nistp256"
    /// RSA keys below this size are refused (NIST and OpenSSH's own floor for new keys).
    public static let minimumRSABits = 2048
    /// The size `coffer ssh generate --type rsa` makes.
    public static let generatedRSABits = 3072
    /// The largest RSA key taken: bigger ones only cost the agent time per signature.
    public static let maximumRSABits = 8192
}
