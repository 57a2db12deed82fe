/// The sizes the server sees (README, "What the server sees"; architecture §2, "Padding"): what
/// is sealed for the server is padded up to a class, so its length says only the class.
///
/// - Items: the plaintext JSON is padded with spaces to at least 512 bytes, then to the next
///   power of two up to 64 KiB, then to a multiple of 64 KiB.
/// - Files: the sealed file is padded with random bytes to 64, 128, 256 or 512 KiB, then to a
///   multiple of 512 KiB (`AttachmentSealing.chunkSize`), so every chunk above the first class is
///   a whole chunk.
public enum SizeClass {
    /// The smallest class of an item's plaintext.
    public static let itemFloor = 512
    /// Above this, items grow by whole steps of it.
    public static let itemStep = 64 * 1024
    /// The smallest class of a sealed file.
    public static let fileFloor = 64 * 1024

    /// The padded length of an item's plaintext of `length` bytes.
    public static func item(_ length: Int) -> Int {
        steps(length, floor: itemFloor, step: itemStep)
    }

    /// The padded length of a sealed file of `length` bytes.
    public static func file(_ length: Int) -> Int {
        steps(length, floor: fileFloor, step: AttachmentSealing.chunkSize)
    }

    /// `floor`, doubled until it holds `length`, up to `step`; past it, whole multiples of `step`.
    private static func steps(_ length: Int, floor: Int, step: Int) -> Int {
        guard length > floor else { return floor }
        guard length > step else { return 1 << (Int.bitWidth - (length - 1).leadingZeroBitCount) }
        return (length + step - 1) / step * step
    }
}
