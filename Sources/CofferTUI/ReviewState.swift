/// The conflict review page: every field of every merged item, one row each.
public struct ReviewState: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var review: Int
        public var field: Int
    }

    public var reviews: [ConflictReview]
    /// Index into `rows`.
    public var cursor = 0
    public var isRevealed = false
    /// Items whose acceptance is being saved.
    public var saving: Set<String> = []

    public init(reviews: [ConflictReview], cursor: Int = 0, isRevealed: Bool = false) {
        self.reviews = reviews
        self.cursor = cursor
        self.isRevealed = isRevealed
    }

    public var rows: [Row] {
        reviews.indices.flatMap { review in
            reviews[review].fields.indices.map { Row(review: review, field: $0) }
        }
    }

    public var currentRow: Row? {
        let rows = rows
        return rows.indices.contains(cursor) ? rows[cursor] : nil
    }
}
