import Foundation

/// What the fuzz checks (`FuzzChecks.foreignImport`) and the hostile-file tests reach: a fuzzer
/// cannot get past a header's HMAC or a block's by chance, so the reader is fuzzed in two halves.
extension KeePassKDBX {
    /// `inner` (what KDBX 4 holds once decrypted: inner header and XML) in a file Coffer writes
    /// (AES-KDF of one round, gzip when `isCompressed`), read back as `import --format kdbx` reads.
    package static func readWrapped(inner: [UInt8], isCompressed: Bool) throws(CoreError) -> KeePassXCXML.Export {
        var writer = KDBXWriter(derivation: .aes(seed: [UInt8](repeating: 1, count: 32), rounds: 1))
        writer.isCompressed = isCompressed
        let credentials = KDBXCredentials(password: SecureBuffer(copying: [UInt8(ascii: "f")]))
        let file: [UInt8]
        do {
            file = try writer.write(inner: inner, credentials: credentials)
        } catch {
            throw CoreError.invalidImport(reason: "f could not be written: \(error.reason)")
        }
        return try read(Data(file), file: "f", credentials: credentials)
    }

    /// The clear header of `data` and its key derivation's bounds, without deriving anything.
    package static func checkHeader(_ data: Data) throws(CoreError) {
        do {
            var reader = KDBXByteReader(Array(data))
            _ = try KDBXKeyDerivation(try KDBXOuterHeader(&reader))
        } catch {
            throw CoreError.invalidImport(reason: "f \(error.reason)")
        }
    }

    /// A valid KDBX 4 file (password `password`, one AES-KDF round) around `inner` (inner header
    /// and XML; gzip already when `isGzipped`, uncompressed otherwise): the hostile-file tests'.
    package static func file(inner: [UInt8], isGzipped: Bool, password: String) throws(CoreError) -> Data {
        var writer = KDBXWriter(derivation: .aes(seed: [UInt8](repeating: 1, count: 32), rounds: 1))
        writer.isInnerGzipped = isGzipped
        writer.isCompressed = isGzipped
        do {
            return Data(try writer.write(inner: inner, credentials: KDBXCredentials(password: SecureBuffer(copying: Array(password.utf8)))))
        } catch {
            throw CoreError.invalidImport(reason: "could not be written: \(error.reason)")
        }
    }
}
