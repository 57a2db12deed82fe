import Foundation

/// Google Authenticator's export: `otpauth-migration://offline?data=…` links (one per QR code the
/// app shows), each the base64 of a `MigrationPayload` protocol buffer:
///
/// ```
/// MigrationPayload { repeated OtpParameters otp_parameters = 1; int32 version = 2; int32 batch_size = 3;
///                    int32 batch_index = 4; int32 batch_id = 5; }
/// OtpParameters { bytes secret = 1; string name = 2; string issuer = 3; Algorithm algorithm = 4;
///                 DigitCount digits = 5; OtpType type = 6; int64 counter = 7; }
/// Algorithm: 0 unspecified (SHA1), 1 SHA1, 2 SHA256, 3 SHA512, 4 MD5; DigitCount: 0/1 six, 2 eight;
/// OtpType: 0 unspecified (TOTP), 1 HOTP, 2 TOTP
/// ```
///
/// Fields this reader does not know are skipped (a newer app's), a wire type it does not know
/// refuses the link. Bounded: a link of at most `linkLimit` characters, `accountLimit` accounts in
/// all, secrets of 1 to 1,024 bytes, names and issuers of at most 1,024 bytes.
public enum OTPMigration {
    public static let linkLimit = 64 * 1024
    public static let accountLimit = 1_000
    static let secretLimit = 1_024
    static let textLimit = 1_024

    /// One account of the export.
    public struct Account: Equatable, Sendable {
        public var secret: [UInt8]
        public var name: String
        public var issuer: String
        /// Nil for an algorithm Coffer does not compute (MD5).
        public var algorithm: TOTP.Algorithm?
        public var digits: Int
        public var isCounterBased: Bool

        /// The item's title: the issuer, else the name.
        public var title: String { issuer.isEmpty ? name : issuer }
        /// The account name without the "Issuer:" prefix Google Authenticator often keeps.
        public var username: String {
            guard !issuer.isEmpty, name.hasPrefix(issuer + ":") else { return name }
            return String(name.dropFirst(issuer.count + 1)).trimmingCharacters(in: .whitespaces)
        }

        /// The `otpauth://totp/…` URI of the account; nil when it is not a TOTP Coffer computes. Names
        /// are percent-encoded but for RFC 3986's unreserved characters: an issuer holding `&secret=`
        /// stays the issuer's text.
        public var uri: String? {
            guard !isCounterBased, let algorithm else { return nil }
            let label = issuer.isEmpty ? Self.encoded(name) : Self.encoded(issuer) + ":" + Self.encoded(username)
            var text = "otpauth://totp/\(label)?secret=\(Base32.encode(secret))"
            if !issuer.isEmpty { text += "&issuer=\(Self.encoded(issuer))" }
            return text + "&algorithm=\(algorithm.rawValue)&digits=\(digits)&period=30"
        }

        private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

        private static func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
        }
    }

    /// Why a link is refused, as the end of a sentence.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The accounts of every `otpauth-migration://` link in `text` (one per line; blank lines and
    /// lines starting with `#` are skipped).
    public static func accounts(inLinks text: String) throws(Problem) -> [Account] {
        var accounts: [Account] = []
        var found = 0
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            found += 1
            do {
                accounts += try Self.accounts(inLink: trimmed)
            } catch {
                throw Problem("line \(index + 1): \(error.description)")
            }
            guard accounts.count <= accountLimit else { throw Problem("more than \(accountLimit) accounts") }
        }
        guard found > 0 else { throw Problem("it holds no otpauth-migration:// link") }
        return accounts
    }

    /// The accounts of one `otpauth-migration://offline?data=…` link.
    public static func accounts(inLink link: String) throws(Problem) -> [Account] {
        guard link.utf8.count <= linkLimit else { throw Problem("the link is longer than \(linkLimit / 1024) KiB") }
        guard link.lowercased().hasPrefix("otpauth-migration://"), let components = URLComponents(string: link),
              components.host?.lowercased() == "offline" else {
            throw Problem("it is not an otpauth-migration://offline link")
        }
        guard let text = components.queryItems?.first(where: { $0.name == "data" })?.value, !text.isEmpty else {
            throw Problem("the link has no data= parameter")
        }
        guard let data = base64(text) else { throw Problem("its data= is not base64") }
        return try accounts(inPayload: data)
    }

    /// The accounts of a `MigrationPayload`'s bytes.
    public static func accounts(inPayload bytes: [UInt8]) throws(Problem) -> [Account] {
        var reader = ProtobufReader(bytes[...])
        var accounts: [Account] = []
        do {
            while let field = try reader.next() {
                guard case .bytes(1, let value) = field else { continue }
                accounts.append(try account(value, number: accounts.count + 1))
                guard accounts.count <= accountLimit else { throw Problem("more than \(accountLimit) accounts") }
            }
        } catch let malformed as ProtobufReader.Malformed {
            throw Problem("its data is malformed (\(malformed))")
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem("its data is malformed")
        }
        guard !accounts.isEmpty else { throw Problem("it holds no account") }
        return accounts
    }

    private static func account(_ bytes: ArraySlice<UInt8>, number: Int) throws -> Account {
        var reader = ProtobufReader(bytes)
        var account = Account(secret: [], name: "", issuer: "", algorithm: .sha1, digits: 6, isCounterBased: false)
        while let field = try reader.next() {
            switch field {
            case .bytes(1, let value):
                guard (1...secretLimit).contains(value.count) else {
                    throw Problem("account \(number) has a secret of \(value.count) bytes (1 to \(secretLimit) are read)")
                }
                account.secret = Array(value)
            case .bytes(let field, let value) where field == 2 || field == 3:
                guard value.count <= textLimit, let text = String(validating: value, as: UTF8.self) else {
                    throw Problem("account \(number)'s \(field == 2 ? "name" : "issuer") is not text of at most \(textLimit) bytes")
                }
                if field == 2 { account.name = text } else { account.issuer = text }
            case .varint(4, let value):
                switch value {
                case 0, 1: account.algorithm = .sha1
                case 2: account.algorithm = .sha256
                case 3: account.algorithm = .sha512
                case 4: account.algorithm = nil
                default: throw Problem("account \(number) has an unknown algorithm (\(value))")
                }
            case .varint(5, let value):
                switch value {
                case 0, 1: account.digits = 6
                case 2: account.digits = 8
                default: throw Problem("account \(number) has an unknown number of digits (\(value))")
                }
            case .varint(6, let value):
                switch value {
                case 0, 2: account.isCounterBased = false
                case 1: account.isCounterBased = true
                default: throw Problem("account \(number) has an unknown type (\(value))")
                }
            default:
                continue  // the counter (7), or a field a newer app added
            }
        }
        guard !account.secret.isEmpty else { throw Problem("account \(number) has no secret") }
        return account
    }

    /// Standard or URL-safe base64, padding optional (the link's data= is percent-decoded already).
    private static func base64(_ text: String) -> [UInt8]? {
        var text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        // A link pasted from a page may have lost its %2B to a space.
        text = text.replacingOccurrences(of: " ", with: "+")
        if text.count % 4 != 0 { text += String(repeating: "=", count: 4 - text.count % 4) }
        return Data(base64Encoded: text).map { Array($0) }
    }
}
