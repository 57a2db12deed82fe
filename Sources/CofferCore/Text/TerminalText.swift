/// The one sanitiser for text this program did not write (item fields, device and person names,
/// server messages, file names, error text that echoes input) before a person sees it.
///
/// A terminal obeys what it is sent: an ESC starts a command (OSC 52 replaces the clipboard, OSC 0
/// the window title, CSI 2J clears the screen), C1 controls (U+0080–U+009F) are the same commands in
/// one code point, a carriage return or a newline redraws a prompt under a fake one, and bidi
/// controls reorder what is shown (`moc.elgoog` read as `google.com`). Each of these is shown as a
/// visible escape instead — `\e`, `\r`, `\x7F`, `\u009B`, `\u202E` — so a person sees that it is
/// there and nothing acts on it.
///
/// Raw bytes stay available where a script asks for them (`show --field`, exports); `--json`
/// escapes the same characters as `\uXXXX`.
public enum TerminalText {
    /// `text` on one line: every control, newline and tab included, shown as an escape.
    public static func line(_ text: String) -> String {
        sanitized(text, keepingLayout: false)
    }

    /// Multi-line `text` (notes): newlines and tabs kept, every other control shown as an escape.
    public static func lines(_ text: String) -> String {
        sanitized(text, keepingLayout: true)
    }

    /// A name someone else chose, for a prompt: on one line, cut to `limit` characters with "…",
    /// so that no name can push the rest of the prompt (a confirmation number) out of sight.
    public static func name(_ text: String, limit: Int = 40) -> String {
        let shown = line(text)
        guard shown.count > limit else { return shown }
        return String(shown.prefix(max(limit - 1, 0))) + "\u{2026}"
    }

    /// The longest server or error message kept and shown: a server cannot fill the screen or the
    /// vault's `meta` table with its answer.
    public static let messageLimit = 500

    /// A message someone else wrote (a server's error text): on one line, cut to `messageLimit`.
    public static func message(_ text: String) -> String {
        name(text, limit: messageLimit)
    }

    /// JSON text with every unsafe character still raw inside its strings written as `\uXXXX`.
    ///
    /// JSONSerialization escapes C0 controls but leaves DEL, C1 and bidi controls raw; outside
    /// strings JSON holds only ASCII punctuation, spaces and newlines, so every such character is
    /// in a string and the escaped text parses to the same values.
    public static func jsonEscaped(_ json: String) -> String {
        // C0 controls never reach here raw: JSON itself forbids them inside strings.
        let isRawInJSON = { (scalar: Unicode.Scalar) in scalar.value >= 0x7F && isUnsafe(scalar) }
        guard json.unicodeScalars.contains(where: isRawInJSON) else { return json }
        var escaped = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if isRawInJSON(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// Whether `scalar` must not reach a terminal as it is (newline and tab count: callers that keep
    /// them ask `lines`).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F:  // C0, DEL, C1
            return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:  // bidi marks, embeddings, isolates
            return true
        default:
            return false
        }
    }

    /// Whether `text` holds nothing `line` would change.
    public static func isSafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains(where: isUnsafe)
    }

    private static func sanitized(_ text: String, keepingLayout: Bool) -> String {
        let isEscaped = { (scalar: Unicode.Scalar) in
            isUnsafe(scalar) && !(keepingLayout && (scalar == "\n" || scalar == "\t"))
        }
        // Most text holds nothing to escape (and notes their newlines): returned as it is.
        guard text.unicodeScalars.contains(where: isEscaped) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isEscaped(scalar) {
                shown.append(contentsOf: escape(scalar).unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\u{1B}": return "\\e"
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\u{07}": return "\\a"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return scalar.value < 0x80 ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                                       : "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}
