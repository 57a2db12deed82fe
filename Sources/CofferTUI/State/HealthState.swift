/// The Health page (`H`): the unlocked vault's weak, reused and old passwords, from
/// `ScreenState.health`, and the cursor.
struct HealthState: Sendable, Equatable {
    var cursor = 0
    /// A check is running (the page shows the previous findings, if any, meanwhile).
    var isChecking: Bool

    init(cursor: Int = 0, isChecking: Bool = false) {
        self.cursor = cursor
        self.isChecking = isChecking
    }
}
