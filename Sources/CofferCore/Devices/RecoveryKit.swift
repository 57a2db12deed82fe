import Crypto
import Foundation

/// A personal vault's recovery kit (issue 31): a code of 26 Crockford base32 symbols (130 random
/// bits) and a check symbol, read aloud or kept on paper, and the server. Argon2id of the code
/// names a recovery account of its own on the server and a key that seals, in that account, what
/// brings the vault back on a new machine: the sync account and the vault key (`RecoveryPayload`).
public struct RecoveryCode: Sendable, Equatable, CustomStringConvertible {
    /// The 27 symbols, canonical.
    public let symbols: String
    static let dataLength = 26

    public static func random() -> RecoveryCode {
        RecoveryCode(symbols: InvitationCode.symbols(InvitationCode.randomValues(count: dataLength)))
    }

    private init(symbols: String) { self.symbols = symbols }

    /// Reads what a person typed: case, dashes, spaces and O/0, I/L/1 do not matter; the check
    /// symbol catches a typo before anything is sent.
    public init(parsing text: String) throws(RecoveryCode.Problem) {
        do {
            symbols = InvitationCode.symbols(try InvitationCode.values(parsing: text, dataLength: Self.dataLength))
        } catch {
            throw Problem(error)
        }
    }

    /// In groups of five: `XXXXX-XXXXX-XXXXX-XXXXX-XXXXX-XX`.
    public var description: String {
        var groups: [String] = []
        var rest = Substring(symbols)
        while !rest.isEmpty {
            groups.append(String(rest.prefix(5)))
            rest = rest.dropFirst(5)
        }
        return groups.joined(separator: "-")
    }

    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        let problem: InvitationCode.Problem
        init(_ problem: InvitationCode.Problem) { self.problem = problem }

        public var description: String {
            switch problem {
            case .length(let count): return "A recovery code has 27 letters and digits; this one has \(count)."
            case .symbol(let character):
                return "\u{201C}\(character)\u{201D} cannot be part of a recovery code (it uses digits and the letters A–Z except I, L, O and U)."
            case .typo: return "The recovery code has a typo (its last symbol does not match the others); nothing was sent."
            }
        }
    }
}

/// What the code derives: the recovery account's name and password, and the key of its payload.
public struct RecoveryKeys: Sendable {
    public let accountName: String
    public let accountPassword: String
    let boxKey: SymmetricKey
    static let salt = Data("coffer-recovery1".utf8)  // Argon2id takes 16 bytes
    static let label = Data("coffer/v1/recovery".utf8)

    public init(code: RecoveryCode) throws {
        let stretched = try Argon2id.derive(passphrase: SecureBuffer(copying: Data(code.symbols.utf8)), salt: Self.salt,
                                            memory: KDFParameters.minimumMemory, iterations: KDFParameters.minimumIterations)
        let name = HKDFSHA256.derive(inputKey: stretched, info: "coffer recovery account", length: 16)
        let password = HKDFSHA256.derive(inputKey: stretched, info: "coffer recovery password", length: 32)
        let box = HKDFSHA256.derive(inputKey: stretched, info: "coffer recovery box", length: 32)
        accountName = "rk-" + name.withUnsafeBytes { Hex.lowercase($0) }
        accountPassword = password.withUnsafeBytes { Data($0).base64EncodedString() }
        boxKey = box.withUnsafeBytes { SymmetricKey(data: $0) }
    }

    /// The recovery record does not open with this kit's key (it was written by someone else).
    public struct Unreadable: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "The recovery record on the server does not open with this kit: nothing was restored." }
    }

    public func seal(_ payload: RecoveryPayload) throws -> String {
        try seal(json: payload.json)
    }

    public func seal(_ payload: SharedRecoveryPayload) throws -> String {
        try seal(json: payload.json)
    }

    private func seal(json: Data) throws -> String {
        var plaintext = json
        defer { wipe(&plaintext) }
        guard let combined = try AES.GCM.seal(plaintext, using: boxKey, authenticating: Self.label).combined else {
            throw CoreError.storage(reason: "AES-GCM produced no ciphertext")
        }
        return combined.base64EncodedString()
    }

    /// A personal vault's payload.
    ///
    /// - Throws: `Unreadable` for anything this kit did not seal, or a shared vault's payload.
    public func open(_ sealed: String) throws -> RecoveryPayload {
        guard case .personal(let payload) = try openKit(sealed) else { throw RecoveryKeys.Unreadable() }
        return payload
    }

    /// The payload, whichever kind of vault's kit this is.
    ///
    /// - Throws: `Unreadable` for anything this kit did not seal.
    public func openKit(_ sealed: String) throws -> RecoveredKit {
        guard sealed.utf8.count <= 4096, let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
              var plaintext = try? AES.GCM.open(box, using: boxKey, authenticating: Self.label) else {
            throw RecoveryKeys.Unreadable()
        }
        defer { wipe(&plaintext) }
        guard let object = try? JSONSerialization.jsonObject(with: plaintext) as? [String: String] else { throw RecoveryKeys.Unreadable() }
        if object["kind"] != nil { return .shared(try SharedRecoveryPayload(object: object)) }
        return .personal(try RecoveryPayload(object: object))
    }
}

/// What a recovery kit brings back: the vault's sync account and its vault key.
public struct RecoveryPayload: Sendable {
    public let server: String
    public let user: String
    public let password: String
    public let vaultKey: SecureBuffer

    public init(server: String, user: String, password: String, vaultKey: SecureBuffer) {
        self.server = server
        self.user = user
        self.password = password
        self.vaultKey = vaultKey
    }

    var json: Data {
        let key = vaultKey.withUnsafeBytes { Data($0).base64EncodedString() }
        return (try? JSONSerialization.data(withJSONObject: ["server": server, "user": user, "password": password, "vault_key": key],
                                            options: [.sortedKeys])) ?? Data()
    }

    init(object: [String: String]) throws {
        guard let server = object["server"], let user = object["user"], let password = object["password"],
              var key = object["vault_key"].flatMap({ Data(base64Encoded: $0) }), key.count == KeyRing.keyLength else {
            throw RecoveryKeys.Unreadable()
        }
        defer { wipe(&key) }
        self.init(server: server, user: user, password: password, vaultKey: SecureBuffer(copying: key))
    }
}

/// The kit as a file or a printout: the server and the code, with words for the person holding it.
public struct RecoveryKit: Sendable {
    public let server: URL
    public let code: RecoveryCode
    /// The shared vault's name, for a shared vault's kit (said in the text; the payload holds it).
    public let sharedVault: String?

    public init(server: URL, code: RecoveryCode, sharedVault: String? = nil) {
        self.server = server
        self.code = code
        self.sharedVault = sharedVault
    }

    public var text: String {
        guard let sharedVault else {
            return """
                Coffer recovery kit
                Keep it where you keep your passport: with it, anyone can open your vault.
                server: \(server.absoluteString)
                code: \(code)
                To restore on a new machine:  coffer recover --kit-file FILE

                """
        }
        return """
            Coffer recovery kit of the shared vault \u{201C}\(sharedVault)\u{201D}
            Keep it where you keep your passport: with it, anyone can act as you in that vault.
            server: \(server.absoluteString)
            code: \(code)
            To restore on a new machine, once your personal vault is back (its own kit):
              coffer --vault \(sharedVault) recover --kit-file FILE

            """
    }

    /// Reads a kit file (or what was typed): the `server:` and `code:` lines.
    public init(parsing text: String) throws {
        var server: URL?
        var code: RecoveryCode?
        for line in text.split(whereSeparator: \.isNewline).prefix(100) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("server:") {
                server = URL(string: trimmed.dropFirst("server:".count).trimmingCharacters(in: .whitespaces))
            } else if trimmed.hasPrefix("code:") {
                code = try RecoveryCode(parsing: String(trimmed.dropFirst("code:".count)))
            }
        }
        guard let server, let scheme = server.scheme, ["http", "https"].contains(scheme), let code else { throw Malformed() }
        self.init(server: server, code: code)
    }

    public struct Malformed: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "This is not a recovery kit: it needs a `server:` line and a `code:` line." }
    }
}
