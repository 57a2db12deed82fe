/// The Health page (`H`): the unlocked vault's weak, reused and old passwords, from
/// `ScreenState.health`, and the cursor.
public struct HealthState: Sendable, Equatable {
    public var cursor = 0
    /// A check is running (the page shows the previous findings, if any, meanwhile).
    public var isChecking: Bool

    public init(cursor: Int = 0, isChecking: Bool = false) {
        self.cursor = cursor
        self.isChecking = isChecking
    }
}
