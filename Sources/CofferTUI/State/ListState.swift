/// The list page's filter, order and selection (kept while visiting detail and form pages).
struct ListState: Sendable, Equatable {
    enum SortOrder: String, Sendable, Equatable {
        case title
        /// Most recently modified first.
        case modified
    }

    var filter = TextField()
    /// Typing goes into the filter.
    var isFilterFocused = false
    var sort = SortOrder.title
    /// The selected item by id, so a reload or a re-sort keeps it.
    var selectedID: String?
    /// Index of the first row drawn.
    var top = 0

    init() {}
}
