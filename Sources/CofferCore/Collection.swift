/// The two synced collections, named once (DESIGN §4: "keep the names in one place").
public enum CollectionName: String, Sendable, CaseIterable, Codable {
    case items
    case keystores

    /// The only keystore record's id.
    public static let keystoreID = "default"
}
