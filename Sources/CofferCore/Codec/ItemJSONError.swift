/// Why the item plaintext codec refused: malformed JSON, a wrong shape, or a value JSON cannot hold.
///
/// The offset is in bytes from the start of the text; the text itself is never quoted (it holds secrets).
public enum ItemJSONError: Error, Equatable, Sendable {
    case malformed(String, offset: Int)
    case missingMember(String)
    case duplicateMember(String)
    case wrongType(String, offset: Int)
    /// JSON has no NaN or infinity.
    case unencodableNumber
}
