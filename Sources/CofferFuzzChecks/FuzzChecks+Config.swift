import CofferCore
import Foundation

extension FuzzChecks {
    /// `config.toml` (`ConfigDocument`, `CofferConfig`): any bytes are a document or a
    /// `ConfigProblem` naming a line of the file, never a crash; a document's entries come in
    /// line order, each key once per table; the settings read from it stay within their bounds.
    public static func config(_ data: Data) throws {
        let document: ConfigDocument
        do {
            document = try ConfigDocument.parse(Array(data))
        } catch {
            try checkLine(of: error, in: data)
            return
        }
        let lines = document.entries.map(\.line)
        guard lines == lines.sorted() else { throw FuzzViolation("entries out of line order: \(lines.prefix(8))") }
        var keys = Set<String>()
        for entry in document.entries where !keys.insert("\(entry.table ?? "").\(entry.key)").inserted {
            throw FuzzViolation("the key \(entry.key.prefix(40)) was taken twice")
        }
        let config: CofferConfig
        do {
            config = try CofferConfig(document, home: "/home/fuzz")
        } catch {
            try checkLine(of: error, in: data)
            return
        }
        if let seconds = config.autoLockSeconds, !CofferConfig.autoLockBounds.contains(seconds) {
            throw FuzzViolation("auto-lock \(seconds) passed its bounds")
        }
        if let seconds = config.clipboardSeconds, !CofferConfig.clipboardBounds.contains(seconds) {
            throw FuzzViolation("clipboard-seconds \(seconds) passed its bounds")
        }
        if let vault = config.vault, !vault.hasPrefix("/") { throw FuzzViolation("a relative vault path passed") }
        if let kind = config.newItemKind, ItemKind.named(kind) == nil { throw FuzzViolation("an unknown kind passed") }
    }

    /// A problem names a line the file has (or none, for the file as a whole).
    private static func checkLine(of problem: ConfigProblem, in data: Data) throws {
        guard let line = problem.line else { return }
        let count = data.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        guard (1...count).contains(line) else { throw FuzzViolation("a problem on line \(line) of a \(count)-line file") }
        guard !problem.reason.isEmpty else { throw FuzzViolation("a problem without a reason") }
    }
}
