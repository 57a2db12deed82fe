import Foundation

/// Debian's `oathtool`, the reference TOTP implementation the tests compare codes with. A test
/// that needs it fails (throws) when it is missing, never skips.
public enum Oathtool {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static let executable = ["/usr/bin/oathtool", "/usr/local/bin/oathtool"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// `oathtool --totp[=ALGORITHM] -d DIGITS -s PERIOD -b BASE32 --now "YYYY-MM-DD HH:MM:SS UTC"`;
    /// `algorithm` is sha1, sha256 or sha512.
    public static func totp(base32: String, algorithm: String, digits: Int, period: Int, at now: Date) throws -> String {
        guard let executable else {
            throw Failure(description: "oathtool is not installed (Debian package oathtool; `make deps` installs it)")
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let (status, output) = try ToolProcess.run(executable, [
            "--totp=\(algorithm)", "-d", String(digits), "-s", "\(period)s", "-b", base32, "--now", formatter.string(from: now) + " UTC",
        ])
        let text = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else { throw Failure(description: "oathtool exited \(status): \(text)") }
        return text
    }
}
