import Foundation
import SwiftCSV

/// A CSV file with a header, read with SwiftCSV, every row checked against the header.
///
/// SwiftCSV handles quoting, embedded commas and newlines, and strips a UTF-8 BOM. What it leaves
/// to us, checked here before or after it runs:
/// - invalid UTF-8 (it takes a `String`): refused with the line of the first bad byte;
/// - a file that ends inside a quoted field (it keeps the rest of the file as that field without
///   complaint): an odd number of `"` in the file means exactly that, since quotes inside fields
///   are always doubled;
/// - a last row without a final newline loses a trailing empty field in SwiftCSV: we add the newline;
/// - rows are not made rectangular: a row with another number of fields than the header is refused.
/// Known limit: SwiftCSV drops whitespace at the start of an unquoted field (` x` reads `x`);
/// exporters that quote every field (Firefox, KeePassXC, Bitwarden) are not affected.
public struct CSVTable: Sendable {
    public struct Row: Sendable {
        /// The file's line on which the row starts (1-based; the header is line 1).
        public var line: Int
        public var values: [String]
    }

    /// Longer lines are refused before parsing: no export of items within architecture §2's limits needs one.
    public static let lineLimit = 1 << 20

    public let file: String
    public let header: [String]
    public let rows: [Row]

    public init(_ data: Data, file: String) throws(CoreError) {
        self.file = file
        try Self.checkLines(data, file: file)
        guard var text = String(data: data, encoding: .utf8) else {
            throw CoreError.invalidImport(reason: "\(file) line \(Self.firstInvalidLine(data)): the text is not valid UTF-8")
        }
        if data.reduce(0, { $0 + ($1 == UInt8(ascii: "\"") ? 1 : 0) }) % 2 == 1 {
            throw CoreError.invalidImport(reason: "\(file) line \(Self.lineCount(data)): the file ends inside a quoted field; is it truncated?")
        }
        if let last = text.last, !last.isNewline { text.append("\n") }
        var rows: [Row] = []
        var header: [String] = []
        var line = 1
        do {
            let csv = try CSV<Enumerated>(string: text, delimiter: .comma, loadColumns: false, rowLimit: 0)
            try csv.enumerateAsArray(startAt: 0, rowLimit: nil) { values in
                let start = line
                // Newlines inside quoted fields move the next row's line on as well.
                line += 1 + values.reduce(0) { $0 + $1.reduce(0) { $0 + ($1.isNewline ? 1 : 0) } }
                if values == [""] { return }  // a blank line
                if header.isEmpty {
                    header = values
                    return
                }
                rows.append(Row(line: start, values: values))
            }
        } catch {
            throw CoreError.invalidImport(reason: "\(file): the CSV is malformed (\(error))")
        }
        guard !header.isEmpty else { throw CoreError.invalidImport(reason: "\(file) is empty: it has no header line") }
        for row in rows where row.values.count != header.count {
            throw CoreError.invalidImport(
                reason: "\(file) line \(row.line): \(row.values.count) field(s), the header has \(header.count)")
        }
        self.header = header
        self.rows = rows
    }

    /// The index of each named column (matched without regard to case or surrounding spaces);
    /// refuses a header that lacks one of `required`, naming the format.
    public func columns(required: [String], format: String) throws(CoreError) -> [String: Int] {
        var indexes: [String: Int] = [:]
        for (index, name) in header.enumerated() {
            let key = Self.key(name)
            if indexes[key] == nil { indexes[key] = index }
        }
        if let missing = required.first(where: { indexes[Self.key($0)] == nil }) {
            throw CoreError.invalidImport(reason: "\(file) line 1: the header has no \"\(missing)\" column, "
                + "so it is not a \(format) export (expected \(required.joined(separator: ", ")))")
        }
        return indexes
    }

    /// The columns not in `known`, with their header names: their values go to notes.
    public func otherColumns(known: [String]) -> [(name: String, index: Int)] {
        let knownKeys = Set(known.map(Self.key))
        return header.enumerated().filter { !knownKeys.contains(Self.key($0.element)) }.map { ($0.element, $0.offset) }
    }

    static func key(_ name: String) -> String { name.trimmingCharacters(in: .whitespaces).lowercased() }

    private static func checkLines(_ data: Data, file: String) throws(CoreError) {
        var line = 1
        var length = 0
        for byte in data {
            if byte == 0x0A {
                line += 1
                length = 0
            } else {
                length += 1
                if length > lineLimit {
                    throw CoreError.invalidImport(reason: "\(file) line \(line): longer than \(lineLimit / 1_048_576) MiB")
                }
            }
        }
    }

    private static func lineCount(_ data: Data) -> Int {
        1 + data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } - (data.last == 0x0A ? 1 : 0)
    }

    /// The line holding the first byte that is not UTF-8 (a UTF-8 sequence never contains a newline byte).
    private static func firstInvalidLine(_ data: Data) -> Int {
        for (index, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
        where String(data: Data(line), encoding: .utf8) == nil {
            return index + 1
        }
        return 1
    }
}

extension CSVTable.Row {
    /// The value of column `name`, "" when the file has no such column.
    public func value(_ name: String, _ columns: [String: Int]) -> String {
        columns[CSVTable.key(name)].map { values[$0] } ?? ""
    }
}
