/// The list page's filter, order and selection (kept while visiting detail and form pages).
public struct ListState: Sendable, Equatable {
    public enum SortOrder: String, Sendable, Equatable {
        case title
        /// Most recently modified first.
        case modified
    }

    public var filter = TextField()
    /// Typing goes into the filter.
    public var isFilterFocused = false
    public var sort = SortOrder.title
    /// The selected item by id, so a reload or a re-sort keeps it.
    public var selectedID: String?
    /// Index of the first row drawn.
    public var top = 0

    public init() {}
}
