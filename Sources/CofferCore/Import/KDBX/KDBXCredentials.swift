import Crypto
import Foundation

/// What opens a KDBX file: a password, a key file, or both, made into KeePass's composite key
/// SHA-256(SHA-256(password) ‖ key file's key).
public struct KDBXCredentials: Sendable {
    public var password: SecureBuffer?
    /// The key file's bytes, as the file holds them.
    public var keyFile: Data?

    public init(password: SecureBuffer?, keyFile: Data? = nil) {
        self.password = password
        self.keyFile = keyFile
    }

    /// The composite key. An empty password counts as none (KeePassXC's "no password").
    func compositeKey() throws(KDBXFailure) -> SecureBuffer {
        var hasher = SHA256()
        if let password, password.count > 0 {
            password.withUnsafeBytes { hasher.update(data: Data(SHA256.hash(data: $0))) }
        }
        if let keyFile {
            var key = try Self.key(ofKeyFile: keyFile)
            defer { wipe(&key) }
            hasher.update(data: key)
        }
        return SecureBuffer(copying: Array(hasher.finalize()))
    }

    /// The 32 bytes a key file stands for, as KeePass reads one: an XML key file (version 1.0:
    /// base64; 2.0: hex with a checksum), 32 raw bytes, 64 hex digits, or else the SHA-256 of
    /// the whole file.
    static func key(ofKeyFile data: Data) throws(KDBXFailure) -> Data {
        if let text = String(data: data, encoding: .utf8), text.contains("<KeyFile>") {
            guard let version = element("Version", in: text), let dataElement = elementWithAttributes("Data", in: text) else {
                throw KDBXFailure("could not be opened: the key file is KeePass XML without a version or key")
            }
            let body = dataElement.text.filter { !$0.isWhitespace }
            if version.hasPrefix("1.") {
                guard let key = Data(base64Encoded: body) else { throw KDBXFailure("could not be opened: the key file's key is not base64") }
                return key
            }
            guard version.hasPrefix("2."), let key = hex(body) else {
                throw KDBXFailure("could not be opened: the key file's key is not in a format Coffer knows")
            }
            if let hash = attribute("Hash", in: dataElement.attributes),
               hex(hash).map({ Array($0) }) != Array(SHA256.hash(data: key).prefix(4)) {
                throw KDBXFailure("could not be opened: the key file's checksum does not match its key (the key file is damaged)")
            }
            return key
        }
        if data.count == 32 { return data }
        if data.count == 64, let text = String(data: data, encoding: .ascii), let key = hex(text) { return key }
        return Data(SHA256.hash(data: data))
    }

    private static func hex(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Character(Unicode.Scalar(digits[index])).hexDigitValue,
                  let low = Character(Unicode.Scalar(digits[index + 1])).hexDigitValue else { return nil }
            out.append(UInt8(high << 4 | low))
        }
        return out
    }

    private static func element(_ name: String, in text: String) -> String? {
        elementWithAttributes(name, in: text)?.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The first `<name …>text</name>` of a key file (a few hundred bytes KeePass wrote).
    private static func elementWithAttributes(_ name: String, in text: String) -> (attributes: Substring, text: Substring)? {
        guard let open = text.range(of: "<\(name)"), let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex),
              let tagEnd = text[open.upperBound..<close.lowerBound].firstIndex(of: ">") else { return nil }
        return (text[open.upperBound..<tagEnd], text[text.index(after: tagEnd)..<close.lowerBound])
    }

    private static func attribute(_ name: String, in attributes: Substring) -> String? {
        guard let start = attributes.range(of: "\(name)=\"") else { return nil }
        return String(attributes[start.upperBound...].prefix { $0 != "\"" })
    }
}
