/// The first-run form: the new passphrase, typed twice.
struct NewVaultForm: Sendable, Equatable {
    enum Field: Sendable, Equatable { case passphrase, repetition }

    var passphrase = SecretText()
    var repetition = SecretText()
    var focus = Field.passphrase
    var error: String?

    init() {}
}
