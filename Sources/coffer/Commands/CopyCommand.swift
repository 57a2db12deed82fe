import ArgumentParser
import CofferCore
import CofferSystem
import Foundation

struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy an item's password (or --field) to the clipboard.",
        discussion: "The clipboard is cleared after `coffer --clipboard-seconds N` (default: config.toml's clipboard-seconds, else 10; 0: never) if it still "
            + "holds the copy; the command returns at once.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @OptionGroup var field: FieldOption
    /// `--clipboard-seconds` belongs to the root command (the screen takes it too), which
    /// ArgumentParser gives it to even when it follows `copy`.
    @ParentCommand var root: Coffer

    func run() async throws {
        // Nowhere to copy to is said before the passphrase is asked.
        let clipboard = ClipboardService.system()
        let terminal = TerminalClipboard.open()
        guard clipboard.hasHelper || terminal != nil else {
            throw CommandFailure("No clipboard to copy to: no terminal, and none of wl-copy, xclip or xsel for a graphical session.")
        }
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        let selector = field.field.flatMap(FieldSelector.init(name:)) ?? .field(.password)
        let value = try await FieldOption.value(selector, of: item, in: vault)
        terminal?.write(OSC52.copy(value))
        await clipboard.copy(value)
        let clipboardSeconds = root.screen.resolvedSeconds.clipboard
        if clipboardSeconds > 0 {
            try ClipboardClearing.start(after: clipboardSeconds, digest: ClipboardClearing.digest(of: value),
                                        terminal: terminal?.path)
        }
    }
}

/// The terminal the command runs in, for OSC 52 (which also works over SSH).
struct TerminalClipboard {
    var path: String

    /// The controlling terminal's path, or nil when there is none (a script, a test).
    static func open() -> TerminalClipboard? {
        for descriptor in [STDERR_FILENO, STDOUT_FILENO, STDIN_FILENO] where isatty(descriptor) != 0 {
            if let name = ttyname(descriptor) { return TerminalClipboard(path: String(cString: name)) }
        }
        return nil
    }

    func write(_ sequence: String) {
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.write(Data(sequence.utf8))
        try? handle.close()
    }
}
