import CSodium

/// How a long-lived process (the agent) asks glibc's allocator to give memory back.
public enum ProcessMemory {
    /// Blocks of `bytes` or more get their own mapping, returned to the system when freed. glibc
    /// otherwise raises this threshold to the size of the largest such block freed — the 9 MB
    /// keystore an agent reads when it unlocks 100,000 items — and later large blocks come from the
    /// heap, whose freed pages stay resident: 32 of the agent's 85 MiB after unlocking (issue 33).
    @discardableResult
    public static func fixMappingThreshold(bytes: Int32) -> Bool { coffer_fix_mmap_threshold(bytes) == 1 }
}
