import CofferCore
import Foundation

/// Standard output: text for people, or bytes a script asked for.
///
/// Every foreign field is sanitised where it is formatted (`TerminalText.line`, so that a title
/// cannot break a table or fake a line); `line` is the backstop behind that: whatever still holds
/// an ESC, C1 or bidi control is shown escaped, newlines and tabs kept. A missed call site then
/// shows `\e]52…` instead of replacing the clipboard.
enum Output {
    /// A line for people (tables, sentences, `--json` text, which is escaped already).
    static func line(_ text: String) {
        Swift.print(TerminalText.lines(text))
    }

    /// `text` exactly as it is, with a newline: `show --field`, the values a script reads.
    static func rawLine(_ text: String) {
        Swift.print(text)
    }

    /// `data` exactly as it is: `export -`.
    static func raw(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }
}
