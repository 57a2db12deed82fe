/// The first-run form: the new passphrase, typed twice.
public struct NewVaultForm: Sendable, Equatable {
    public enum Field: Sendable, Equatable { case passphrase, repetition }

    public var passphrase = SecretText()
    public var repetition = SecretText()
    public var focus = Field.passphrase
    public var error: String?

    public init() {}
}
