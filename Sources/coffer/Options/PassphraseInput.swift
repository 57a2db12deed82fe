import CofferCore
import Foundation

/// Where a passphrase comes from: `--passphrase-file`, else stdin's lines when stdin is not a
/// terminal, else the terminal without echo.
struct PassphraseInput {
    var file: String?

    enum Failure: Error, CustomStringConvertible {
        case unreadable(String)
        /// Too large, not a file, or readable by others: `InputFile`'s reason.
        case refused(String)
        case noInput
        case mismatch

        var description: String {
            switch self {
            case .unreadable(let path): return "Cannot read the passphrase file \(path)."
            case .refused(let reason): return "The passphrase file \(reason)."
            case .noInput: return "No passphrase was given (stdin ended before it)."
            case .mismatch: return "The two passphrases differ; nothing was changed."
            }
        }
    }

    /// Reads one passphrase (the next line of stdin when it is not a terminal).
    func read(prompt: String) throws -> SecureBuffer {
        if let file { return try Self.firstLine(ofFile: file) }
        if isatty(STDIN_FILENO) == 0 { return try StandardInputLines.shared.next() }
        return try Terminal.readHidden(prompt: prompt)
    }

    /// Reads a new passphrase: from `file`, or the next stdin line, or twice from the terminal.
    static func readNew(file: String?, prompt: String) throws -> SecureBuffer {
        if let file { return try firstLine(ofFile: file) }
        if isatty(STDIN_FILENO) == 0 { return try StandardInputLines.shared.next() }
        let first = try Terminal.readHidden(prompt: prompt)
        let text = first.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        Terminal.write(StrengthLine.text(for: PassphraseStrength.estimate(text)))
        let second = try Terminal.readHidden(prompt: "Repeat it: ")
        guard first.isEqual(to: second) else { throw Failure.mismatch }
        return first
    }

    static func firstLine(ofFile path: String) throws -> SecureBuffer {
        var data: Data
        do {
            data = try InputFile.read(path, limit: InputFile.secretLimit, isSecret: true, allowsStreams: true)
        } catch .unreadable {
            throw Failure.unreadable(path)
        } catch {
            throw Failure.refused(InputFile.reason(error, path: path))
        }
        defer { wipe(&data) }
        let line = data.prefix { $0 != 0x0A }
        let trimmed = line.last == 0x0D ? line.dropLast() : line
        return SecureBuffer(copying: Array(trimmed))
    }
}

/// The lines of a non-terminal stdin, one at a time as they are asked for: the first is the
/// passphrase, the second (for `passwd`) the new one, or an answer to a prompt.
///
/// Read a byte at a time up to the newline, never to the end: a script that writes `y` to a pipe
/// it keeps open is answered at once, and what follows the line stays in the pipe.
final class StandardInputLines: @unchecked Sendable {
    static let shared = StandardInputLines()
    private let lock = NSLock()
    private var isAtEnd = false

    /// The next line without its `\n` (or `\r\n`).
    ///
    /// - Throws: `PassphraseInput.Failure.noInput` when stdin ended before any byte of a line.
    func next() throws -> SecureBuffer {
        lock.lock()
        defer { lock.unlock() }
        var bytes: [UInt8] = []
        defer { wipe(&bytes) }
        var byte: UInt8 = 0
        var sawNewline = false
        while !isAtEnd {
            let count = Glibc.read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else {
                isAtEnd = true
                break
            }
            if byte == 0x0A {
                sawNewline = true
                break
            }
            bytes.append(byte)
        }
        guard sawNewline || !bytes.isEmpty else { throw PassphraseInput.Failure.noInput }
        if bytes.last == 0x0D { bytes.removeLast() }
        return SecureBuffer(copying: bytes)
    }
}

/// The controlling terminal, for prompts that must not echo.
enum Terminal {
    /// Text for people on stderr (prompts, reports, errors). A backstop like `Output.line`: an
    /// ESC, C1, bidi or other control that reached it is shown escaped; newlines and tabs stay.
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(TerminalText.lines(text).utf8))
    }

    /// `text` as it is: only for the controls this program writes itself (progress redrawn with
    /// `\r` and `\e[K`), never with a foreign field in it.
    static func writeRaw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// One answer: from the terminal, or the next line of stdin when it is not a terminal.
    static func readLine() throws -> String {
        guard isatty(STDIN_FILENO) != 0 else {
            return try StandardInputLines.shared.next().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }
        let descriptor = open("/dev/tty", O_RDONLY | O_CLOEXEC)
        let input = descriptor >= 0 ? descriptor : STDIN_FILENO
        defer { if descriptor >= 0 { close(descriptor) } }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(input, &byte, 1) == 1, byte != 0x0A, byte != 0x0D { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func readHidden(prompt: String) throws -> SecureBuffer {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        let input = descriptor >= 0 ? descriptor : STDIN_FILENO
        defer { if descriptor >= 0 { close(descriptor) } }
        // The prompt names a path or a host someone typed: shown like every text for people.
        _ = TerminalText.lines(prompt).withCString { Glibc.write(input == STDIN_FILENO ? STDERR_FILENO : input, $0, strlen($0)) }
        var original = termios()
        let hasTerminal = tcgetattr(input, &original) == 0
        if hasTerminal {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(input, TCSAFLUSH, &silent)
        }
        defer { if hasTerminal { tcsetattr(input, TCSAFLUSH, &original) } }
        var bytes: [UInt8] = []
        defer { wipe(&bytes) }
        var byte: UInt8 = 0
        while Glibc.read(input, &byte, 1) == 1 {
            if byte == 0x0A || byte == 0x0D { break }
            bytes.append(byte)
        }
        return SecureBuffer(copying: bytes)
    }
}
