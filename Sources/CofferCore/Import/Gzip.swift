import CZlib
import Foundation

/// Reads gzip data (KeePass stores attachments gzipped in its XML export). The data is a
/// stranger's: the output stops at `limit` bytes, so a small "zip bomb" costs at most that much
/// memory and the time to inflate it.
enum Gzip {
    enum Failure: Error, Equatable {
        /// Not gzip, cut short, or a checksum that does not match.
        case notGzip
        /// More than `limit` bytes once inflated.
        case tooLarge
    }

    /// The inflated bytes of `data`, at most `limit` of them.
    static func inflate(_ data: Data, limit: Int) -> Result<Data, Failure> {
        var output = Data()
        let result = inflate(data, limit: limit) { output.append($0) }
        return result.map { output }
    }

    /// The number of bytes `data` inflates to, at most `limit`, without keeping them.
    static func inflatedSize(_ data: Data, limit: Int) -> Result<Int, Failure> {
        var size = 0
        return inflate(data, limit: limit) { size += $0.count }.map { size }
    }

    /// Inflates `data`, handing each piece of output to `consume`; stops at the end of the first
    /// gzip member (KeePass writes one).
    private static func inflate(_ data: Data, limit: Int, consume: (UnsafeBufferPointer<UInt8>) -> Void) -> Result<Void, Failure> {
        guard !data.isEmpty else { return .failure(.notGzip) }
        var stream = z_stream()
        guard coffer_inflate_init_gzip(&stream) == Z_OK else { return .failure(.notGzip) }
        defer { inflateEnd(&stream) }
        let piece = 64 << 10
        var buffer = [UInt8](repeating: 0, count: piece)
        var total = 0
        return data.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> Result<Void, Failure> in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (status, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(piece)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    let produced = piece - Int(stream.avail_out)
                    consume(UnsafeBufferPointer(rebasing: UnsafeBufferPointer(out)[0..<produced]))
                    return (status, produced)
                }
                total += produced
                if total > limit { return .failure(.tooLarge) }
                switch status {
                case Z_STREAM_END: return .success(())
                case Z_OK: continue
                // Z_BUF_ERROR with output room left: the input ended before the stream did.
                default: return .failure(.notGzip)
                }
            }
        }
    }

    /// `data` compressed as one gzip member.
    static func deflate(_ data: Data) -> Data {
        var stream = z_stream()
        guard coffer_deflate_init_gzip(&stream) == Z_OK else { return Data() }
        defer { deflateEnd(&stream) }
        var output = Data()
        let piece = 64 << 10
        var buffer = [UInt8](repeating: 0, count: piece)
        data.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            var status = Z_OK
            while status == Z_OK {
                buffer.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(piece)
                    status = CZlib.deflate(&stream, Z_FINISH)
                    output.append(out.baseAddress!, count: piece - Int(stream.avail_out))
                }
            }
        }
        return output
    }
}
