/// The conflict review page: every field of every merged item, one row each; an item without
/// fields gets one row of its own, so it can be accepted.
struct ReviewState: Sendable, Equatable {
    struct Row: Sendable, Equatable {
        var review: Int
        /// Index into the review's fields; nil for the row of an item without fields.
        var field: Int?
    }

    var reviews: [ConflictReview]
    /// Index into `rows`.
    var cursor = 0
    var isRevealed = false
    /// Items whose acceptance is being saved.
    var saving: Set<String> = []

    init(reviews: [ConflictReview], cursor: Int = 0, isRevealed: Bool = false) {
        self.reviews = reviews
        self.cursor = cursor
        self.isRevealed = isRevealed
    }

    var rows: [Row] {
        reviews.indices.flatMap { review -> [Row] in
            let fields = reviews[review].fields
            return fields.isEmpty ? [Row(review: review, field: nil)] : fields.indices.map { Row(review: review, field: $0) }
        }
    }

    var currentRow: Row? {
        let rows = rows
        return rows.indices.contains(cursor) ? rows[cursor] : nil
    }

    /// The field under the cursor; nil on an item without fields.
    var currentField: FieldConflict? {
        guard let row = currentRow, let field = row.field else { return nil }
        return reviews[row.review].fields[field]
    }
}
