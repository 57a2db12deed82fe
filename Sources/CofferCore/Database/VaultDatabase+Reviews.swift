import GRDB

/// The `reviews` table, every statement on it in one place: a merge's sealed review (⚑) per item,
/// kept until the user accepts the merge or the item is removed (architecture §3).
extension VaultDatabase {
    /// Keeps a merge's review (⚑), sealed (`ItemReviewSealing`), replacing an earlier one.
    static func saveReview(id: String, sealed: String, now: Timestamp, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO reviews (id, created, sealed) VALUES (?, ?, ?)")
            .execute(arguments: [id, now.milliseconds, sealed])
    }

    /// Drops an item's review: the merge was accepted, or the item removed.
    static func removeReview(_ id: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM reviews WHERE id = ?").execute(arguments: [id])
    }

    /// The ids of the items with a review waiting (the ⚑ badge).
    static func reviewedIDs(in db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT id FROM reviews"))
    }

    static func reviewCount(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reviews") ?? 0
    }

    /// Every sealed review with its item's id, oldest first.
    static func sealedReviews(in db: Database) throws -> [(id: String, sealed: String)] {
        try Row.fetchAll(db, sql: "SELECT id, sealed FROM reviews ORDER BY created").map { (id: $0["id"], sealed: $0["sealed"]) }
    }
}
