import Crypto
import Foundation

/// A time-based one-time password generator (RFC 6238) read from what an item's `totp` field holds:
/// an `otpauth://totp/…` URI or a bare base32 secret (SHA-1, 6 digits, 30 s).
///
/// Time is always a parameter: callers take the clock once, at their edge.
public struct TOTP: Sendable, Equatable {
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha1 = "SHA1", sha256 = "SHA256", sha512 = "SHA512"
    }

    public var secret: [UInt8]
    public var algorithm: Algorithm
    public var digits: Int
    public var period: Int

    public static let digitRange = 6...8
    public static let periodRange = 1...3600

    public init(secret: [UInt8], algorithm: Algorithm = .sha1, digits: Int = 6, period: Int = 30) {
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
    }

    /// Why a `totp` value is refused, as the end of a sentence ("The TOTP secret is invalid: …").
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notBase32
        case empty
        case notTOTP(String)
        case notAURI
        case missingSecret
        case algorithm(String)
        case digits(String)
        case period(String)

        public var description: String {
            switch self {
            case .notBase32: return "the secret is not base32 (letters A to Z and digits 2 to 7)"
            case .empty: return "the secret is empty"
            case .notTOTP(let kind): return "an otpauth://\(kind) URI is not a time-based code (only otpauth://totp/ is)"
            case .notAURI: return "it is neither a base32 secret nor an otpauth://totp/ URI"
            case .missingSecret: return "the otpauth:// URI has no secret= parameter"
            case .algorithm(let name):
                return "the algorithm “\(name)” is not one of " + Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
            case .digits(let text): return "digits=\(text) is not a number from 6 to 8"
            case .period(let text): return "period=\(text) is not a number of seconds from 1 to 3600"
            }
        }
    }

    /// Parses an item's `totp` text.
    public init(parsing text: String) throws(Problem) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.lowercased().hasPrefix("otpauth:") else {
            self.init(secret: try TOTP.secret(from: trimmed))
            return
        }
        guard let components = URLComponents(string: trimmed), components.scheme?.lowercased() == "otpauth" else {
            throw .notAURI
        }
        let kind = (components.host ?? "").lowercased()
        guard kind == "totp" else { throw .notTOTP(kind) }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name.lowercased()] = item.value ?? "" }
        guard let secretText = parameters["secret"] else { throw .missingSecret }
        self.init(secret: try TOTP.secret(from: secretText))
        if let name = parameters["algorithm"] {
            guard let algorithm = Algorithm(rawValue: name.uppercased()) else { throw .algorithm(name) }
            self.algorithm = algorithm
        }
        if let text = parameters["digits"] {
            guard let digits = Int(text), TOTP.digitRange.contains(digits) else { throw .digits(text) }
            self.digits = digits
        }
        if let text = parameters["period"] {
            guard let period = Int(text), TOTP.periodRange.contains(period) else { throw .period(text) }
            self.period = period
        }
    }

    private static func secret(from text: String) throws(Problem) -> [UInt8] {
        guard let bytes = Base32.decode(text) else { throw .notBase32 }
        guard !bytes.isEmpty else { throw .empty }
        return bytes
    }

    /// The code valid at `now`, zero-padded to `digits`.
    public func code(at now: Date) -> String {
        code(counter: UInt64(max(0, now.timeIntervalSince1970) / Double(period)))
    }

    /// Seconds until the code of `now` expires (1…period).
    public func secondsLeft(at now: Date) -> Int {
        let elapsed = Int(max(0, now.timeIntervalSince1970).rounded(.down)) % period
        return period - elapsed
    }

    /// RFC 4226's HOTP of `counter`: HMAC over the big-endian counter, dynamic truncation.
    func code(counter: UInt64) -> String {
        let message = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        let key = SymmetricKey(data: secret)
        let mac: [UInt8]
        switch algorithm {
        case .sha1: mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
        case .sha256: mac = Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        case .sha512: mac = Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
        }
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: max(0, digits - value.count)) + value
    }
}

extension Item {
    /// The item's code generator: nil when it holds no TOTP secret, `invalidTOTP` when the secret
    /// it holds (imported, or synced from an older device) yields no code.
    public func totpGenerator() throws(CoreError) -> TOTP? {
        guard let text = entry.totp, !text.isEmpty else { return nil }
        do {
            return try TOTP(parsing: text)
        } catch {
            throw .invalidTOTP(error)
        }
    }
}
