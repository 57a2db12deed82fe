/// Replaces every occurrence of some secret values in a byte stream with a placeholder, for
/// `coffer run --mask`, whose child's output arrives in reads of any size.
///
/// A value split across two reads is still caught: bytes that could be the start of a value are
/// held back until the next read decides (or `finish` gives them up as they are), and nothing
/// else is delayed, so a prompt without a newline shows at once. Where values overlap, the
/// longest that matches wins.
public struct OutputMasker: Sendable {
    public static let placeholder = Array("<concealed by coffer>".utf8)

    /// Longest first; empty values are left out (they would match everywhere).
    private let values: [[UInt8]]
    /// Whether a byte starts some value: most bytes do not, and pass without a comparison.
    private let isFirstByte: [Bool]
    private var pending: [UInt8] = []

    public init(values: [String]) {
        self.values = Set(values.map { Array($0.utf8) }).filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        var isFirstByte = [Bool](repeating: false, count: 256)
        for value in self.values { isFirstByte[Int(value[0])] = true }
        self.isFirstByte = isFirstByte
    }

    /// What of `bytes` (after what was held back) can be written now, masked.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        pending.append(contentsOf: bytes)
        return drain(isAtEnd: false)
    }

    /// The rest, at the end of the stream.
    public mutating func finish() -> [UInt8] {
        drain(isAtEnd: true)
    }

    private mutating func drain(isAtEnd: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(pending.count)
        var index = 0
        scan: while index < pending.count {
            guard isFirstByte[Int(pending[index])] else {
                output.append(pending[index])
                index += 1
                continue
            }
            for value in values {
                let available = pending.count - index
                if available >= value.count {
                    if pending[index..<index + value.count].elementsEqual(value) {
                        output += Self.placeholder
                        index += value.count
                        continue scan
                    }
                } else if !isAtEnd, pending[index...].elementsEqual(value.prefix(available)) {
                    // Could be this (longer) value once more bytes come: decide then.
                    break scan
                }
            }
            output.append(pending[index])
            index += 1
        }
        pending.removeFirst(index)
        return output
    }
}
