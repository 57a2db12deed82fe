import Crypto
import Foundation

/// A review (⚑) sealed under its item's key, as the `reviews` table keeps it.
enum ItemReviewSealing {
    /// The envelope, base64; nil when the ring lacks the item's key.
    static func seal(_ review: ItemReview, ring: KeyRing) throws -> String? {
        // The key used in place: a copy of its own (a locked page mapped per merge) cost more than the merge.
        guard let key = ring.withKey(for: review.id, { SymmetricKey(data: $0) }) else { return nil }
        let plaintext = Data(ItemReviewJSON.encode(review))
        return try Envelope.seal(plaintext, symmetricKey: key, collection: "reviews", id: review.id).base64EncodedString()
    }
}
