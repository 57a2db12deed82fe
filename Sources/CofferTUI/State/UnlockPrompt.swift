/// The locked screen's passphrase prompt (nothing typed is ever drawn).
struct UnlockPrompt: Sendable, Equatable {
    var passphrase = SecretText()
    /// Why the last attempt failed ("Wrong passphrase…"), shown until the next one.
    var error: String?
    var failedAttempts = 0
    /// Why the screen locked when another device asked ("Locked from desktop at 14:03:10").
    var remark: String?

    init(passphrase: SecretText = SecretText(), error: String? = nil, failedAttempts: Int = 0) {
        self.passphrase = passphrase
        self.error = error
        self.failedAttempts = failedAttempts
    }
}
