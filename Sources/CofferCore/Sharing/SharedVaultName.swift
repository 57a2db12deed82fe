import Foundation

/// A shared vault's name: its file is `NAME.db` beside the personal vault and `--vault NAME` finds it.
public enum SharedVaultName {
    public static let limit = 64

    /// 1 to 64 letters, digits, `-` or `_`, not starting with `-`: a file name and an option value as it is.
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1...limit).contains(bytes.count) && bytes.first != UInt8(ascii: "-") && bytes.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// The file of the shared vault `name` beside the personal vault at `personalPath`.
    public static func path(of name: String, besidePersonalVault personalPath: String) -> String {
        ((personalPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("\(name).db")
    }
}
