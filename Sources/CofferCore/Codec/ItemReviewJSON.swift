/// An `ItemReview` as the JSON `JSONEncoder` writes with `[.sortedKeys, .withoutEscapingSlashes]`,
/// byte for byte, without Foundation's encoder: a reconcile seals one review per merge, and the
/// generic encoder was a tenth of its time. Reviews are read back with `JSONDecoder`, as before.
enum ItemReviewJSON {
    static func encode(_ review: ItemReview) -> [UInt8] {
        var writer = ItemJSONWriter(capacity: 512)
        writer.raw(#"{"conflicts":["#)
        for (index, conflict) in review.conflicts.enumerated() {
            if index > 0 { writer.raw(",") }
            write(conflict, to: &writer)
        }
        writer.raw(#"],"id":"#)
        writer.string(review.id)
        if let signer = review.remoteSigner {
            writer.raw(#","remoteSigner":"#)
            writer.string(signer)
        }
        writer.raw(#","title":"#)
        writer.string(review.title)
        writer.raw("}")
        return writer.takeBytes()
    }

    /// Members in sorted order; absent optionals are left out, as the synthesized `Encodable` does.
    private static func write(_ conflict: ItemMerge.FieldConflict, to writer: inout ItemJSONWriter) {
        writer.raw(#"{"changedOn":"#)
        writer.string(conflict.changedOn.rawValue)
        writer.raw(#","chosen":"#)
        writer.string(conflict.chosen.rawValue)
        if let combined = conflict.combined {
            writer.raw(#","combined":"#)
            writer.string(combined)
        }
        if let field = conflict.customLocal {
            writer.raw(#","customLocal":"#)
            write(field, to: &writer)
        }
        if let field = conflict.customRemote {
            writer.raw(#","customRemote":"#)
            write(field, to: &writer)
        }
        writer.raw(#","field":"#)
        writer.string(conflict.field.rawValue)
        if let lists = conflict.lists {
            writer.raw(#","lists":{"combined":"#)
            writer.strings(lists.combined)
            writer.raw(#","local":"#)
            writer.strings(lists.local)
            writer.raw(#","remote":"#)
            writer.strings(lists.remote)
            writer.raw("}")
        }
        writer.raw(#","local":"#)
        writer.string(conflict.local)
        if let stamp = conflict.localStamp {
            writer.raw(#","localStamp":"#)
            write(stamp, to: &writer)
        }
        writer.raw(#","remote":"#)
        writer.string(conflict.remote)
        if let stamp = conflict.remoteStamp {
            writer.raw(#","remoteStamp":"#)
            write(stamp, to: &writer)
        }
        writer.raw("}")
    }

    private static func write(_ field: CustomField, to writer: inout ItemJSONWriter) {
        writer.raw(#"{"id":"#)
        writer.string(field.id)
        writer.raw(#","label":"#)
        writer.string(field.label)
        writer.raw(#","type":"#)
        writer.string(field.type)
        writer.raw(#","value":"#)
        writer.string(field.value)
        writer.raw("}")
    }

    private static func write(_ stamp: FieldStamp, to writer: inout ItemJSONWriter) {
        writer.raw(#"{"at":"#)
        writer.timestamp(stamp.at)
        writer.raw(#","by":"#)
        writer.string(stamp.by)
        writer.raw("}")
    }
}
