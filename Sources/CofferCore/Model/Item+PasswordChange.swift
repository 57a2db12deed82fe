extension Item {
    /// When the password last changed: the newest of its field time and the newest history
    /// entry whose patch restores an older password; without either, `stamp(of: .password)`
    /// (`modified` for an item written before field times, else `created`).
    public var passwordChanged: Timestamp {
        let stamped = times[.password]?.at
        // History is newest first; each patch turns the entry after it back into the one before,
        // so a patch naming `password` marks a change at its time.
        let fromHistory = history.first { $0.patch.objectValue?["password"] != nil }?.created
        switch (stamped, fromHistory) {
        case let (stamped?, fromHistory?): return max(stamped, fromHistory)
        case let (stamped?, nil): return stamped
        case let (nil, fromHistory?): return fromHistory
        case (nil, nil): return stamp(of: .password).at
        }
    }
}
