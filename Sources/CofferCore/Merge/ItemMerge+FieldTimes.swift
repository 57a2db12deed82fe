extension ItemMerge {
    /// The side that keeps a field both devices changed to different values (the Airmail journal): the later
    /// change by the corrected clocks, so every device reaches the same result whatever order they
    /// sync in — merge(A, B) = merge(B, A).
    ///
    /// Times are clamped before they are compared: no later than the moment that could have seen
    /// them (`now` for ours; for theirs also the server time of the record that carried it), and no
    /// earlier than the base's stamp for the field — a clock set to 2100 cannot win. Equal times are
    /// broken by the device id, then by the values' bytes: deterministic, never by who merges.
    public struct LaterChange: Sendable, Equatable {
        public var chosen: Choice
        /// Each side's stamp as compared (clamped); the winner's is the merged item's.
        public var local: FieldStamp
        public var remote: FieldStamp

        public static func decide(_ field: ItemField, local: Item, remote: Item, stable: Item?,
                                  now: Timestamp, remoteServerTime: Timestamp?) -> LaterChange {
            // Only a stamp the base really carries: `modified`, standing in for an item without
            // times, may be later than when this field changed.
            let floor = stable?.times[field]?.at
            func clamped(_ stamp: FieldStamp, ceiling: Timestamp) -> FieldStamp {
                var at = min(stamp.at, ceiling)
                if let floor { at = max(at, floor) }
                return FieldStamp(at: at, by: stamp.by)
            }
            let ours = clamped(local.stamp(of: field), ceiling: now)
            let theirs = clamped(remote.stamp(of: field), ceiling: min(now, remoteServerTime ?? now))
            let remoteIsLater: Bool
            if ours.at != theirs.at {
                remoteIsLater = theirs.at > ours.at
            } else if ours.by != theirs.by {
                remoteIsLater = ours.by.utf8.lexicographicallyPrecedes(theirs.by.utf8)
            } else {
                remoteIsLater = (local.value(of: field) ?? "").utf8.lexicographicallyPrecedes((remote.value(of: field) ?? "").utf8)
            }
            return LaterChange(chosen: remoteIsLater ? .remote : .local, local: ours, remote: theirs)
        }
    }
}
