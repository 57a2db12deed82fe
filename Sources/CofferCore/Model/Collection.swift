/// The two synced collections, named once (architecture §4: "keep the names in one place").
public enum CollectionName: String, Sendable, CaseIterable, Codable {
    case items
    case keystores

    /// The only keystore record's id.
    public static let keystoreID = "default"
}

/// The device registry and its messages (architecture §9), in the same bucket as the synced collections.
/// They are not synced as records: each has its own steps.
public enum DeviceCollectionName: String, Sendable, CaseIterable {
    case devices
    case messages
}
