import Foundation

/// Coffer's items as a KDBX 4 file KeePassXC opens (architecture §13): ChaCha20, Argon2id, gzip.
///
/// Every item is an entry of one group, "Coffer": its title, username, password (protected),
/// first origin (`URL`; the others `KP2A_URL_n`, as KeePassXC writes them), notes, TOTP as
/// KeePassXC's `otp` attribute (protected), a kind's other fields by their labels (secret ones
/// protected), custom fields by their labels (hidden ones protected), tags as KeePass's `Tags`,
/// times, its files as attachments in the inner header, and its history as the entry's past
/// versions. Not written: its kind's name (KeePass entries have no kind), disabled items' flag.
public enum KeePassKDBXExport {
    /// An item with its files' names and bytes.
    public struct Entry: Sendable {
        public var item: Item
        public var files: [(name: String, data: Data)]

        public init(item: Item, files: [(name: String, data: Data)]) {
            self.item = item
            self.files = files
        }
    }

    /// The file's bytes, its key derived with Argon2id at `memory` bytes and `iterations` passes.
    public static func write(_ entries: [Entry], credentials: KDBXCredentials, memory: Int, iterations: Int) throws(CoreError) -> Data {
        try write(entries, credentials: credentials, writer: KDBXWriter(derivation: KDBXWriter.argon2id(memory: memory, iterations: iterations)))
    }

    /// The key derivations and ciphers the tests have KeePassXC open (the export itself writes
    /// Argon2id and ChaCha20): `kdf` is argon2d, argon2id or aes-kdf, at quick settings.
    package static func write(_ entries: [Entry], credentials: KDBXCredentials, kdf: String, isAES: Bool) throws(CoreError) -> Data {
        let derivation: KDBXKeyDerivation
        switch kdf {
        case "argon2d": derivation = .argon2(isHybrid: false, salt: KDBXWriter.random(32), memory: 16 << 20, iterations: 2, parallelism: 2, version: 0x13)
        case "argon2id": derivation = .argon2(isHybrid: true, salt: KDBXWriter.random(32), memory: 16 << 20, iterations: 2, parallelism: 2, version: 0x13)
        default: derivation = .aes(seed: KDBXWriter.random(32), rounds: 10_000)
        }
        var writer = KDBXWriter(derivation: derivation)
        writer.cipher = isAES ? .aes256 : .chacha20
        return try write(entries, credentials: credentials, writer: writer)
    }

    private static func write(_ entries: [Entry], credentials: KDBXCredentials, writer: KDBXWriter) throws(CoreError) -> Data {
        do {
            var document = KeePassXMLWriter(stream: try writer.innerStream())
            let binaries = document.add(entries)
            return Data(try writer.write(xml: document.finish(), binaries: binaries, credentials: credentials))
        } catch {
            throw CoreError.invalidImport(reason: "the KDBX file could not be written: \(error.reason)")
        }
    }

    /// The same document as KeePass XML (`export --format keepassxc-xml`, what `keepassxc-cli
    /// import` and `import --format keepassxc-xml` read): nothing encrypted, protected values
    /// marked `ProtectInMemory`, files base64 in `Meta/Binaries`.
    public static func xml(_ entries: [Entry]) -> Data {
        var document = KeePassXMLWriter(stream: nil)
        let binaries = document.add(entries)
        return document.finish(binaries: binaries)
    }
}
