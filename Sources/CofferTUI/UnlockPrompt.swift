/// The locked screen's passphrase prompt (nothing typed is ever drawn).
public struct UnlockPrompt: Sendable, Equatable {
    public var passphrase = SecretText()
    /// Why the last attempt failed ("Wrong passphrase…"), shown until the next one.
    public var error: String?
    public var failedAttempts = 0
    /// Why the screen locked when another device asked ("Locked from desktop at 14:03:10").
    public var remark: String?

    public init(passphrase: SecretText = SecretText(), error: String? = nil, failedAttempts: Int = 0) {
        self.passphrase = passphrase
        self.error = error
        self.failedAttempts = failedAttempts
    }
}
