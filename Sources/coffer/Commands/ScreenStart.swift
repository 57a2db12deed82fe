import ArgumentParser
import CofferCore
import CofferTUI
import Foundation

/// `coffer` with no command: the screen, or, without a terminal, what the vault holds and the
/// commands there are.
struct ScreenStart {
    static let defaultAutoLockSeconds: Double = 300
    static let defaultClipboardSeconds: Double = 10

    var vaultPath: String
    var autoLockSeconds = ScreenStart.defaultAutoLockSeconds
    var clipboardSeconds = ScreenStart.defaultClipboardSeconds

    static func isValidClipboardDelay(_ seconds: Double) -> Bool { seconds >= 0 && seconds.isFinite }

    /// The root command's options (`ScreenArguments`) read without ArgumentParser
    /// (`HandReadOptions`): `--vault`, `--auto-lock` and `--clipboard-seconds`. Nil for anything
    /// else, or a value that is not a plain number, which the full parse then takes.
    init?(arguments: [String]) {
        guard let values = HandReadOptions(arguments[...], options: ["--vault", "--auto-lock", "--clipboard-seconds"])?.values
        else { return nil }
        // `--vault NAME` is a shared vault's name here too (`NAME.db` beside the personal vault).
        var autoLockFlag: Double?, clipboardFlag: Double?
        if let text = values["--auto-lock"] {
            guard let seconds = Double(text), seconds.isFinite else { return nil }
            autoLockFlag = seconds
        }
        if let text = values["--clipboard-seconds"] {
            guard let seconds = Double(text), ScreenStart.isValidClipboardDelay(seconds) else { return nil }
            clipboardFlag = seconds
        }
        let seconds = Configuration.current.seconds(autoLockFlag: autoLockFlag, clipboardFlag: clipboardFlag)
        self.init(vaultPath: GlobalOptions.given(vault: values["--vault"], passphraseFile: nil).vaultPath,
                  autoLockSeconds: seconds.autoLock, clipboardSeconds: seconds.clipboard)
    }

    init(vaultPath: String, autoLockSeconds: Double = ScreenStart.defaultAutoLockSeconds,
         clipboardSeconds: Double = ScreenStart.defaultClipboardSeconds) {
        self.vaultPath = vaultPath
        self.autoLockSeconds = autoLockSeconds
        self.clipboardSeconds = clipboardSeconds
    }

    func run() async throws {
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            // Not a terminal (a script, a pipe): say what the vault holds and what the commands are.
            if let status = try? Vault.open(at: vaultPath).database.status() {
                Output.line(StatusCommand.describe(status, path: vaultPath) + "\n")
            }
            Output.line(Coffer.helpMessage())
            return
        }
        var options = ScreenOptions(autoLockSeconds: autoLockSeconds, clipboardSeconds: clipboardSeconds,
                                    timing: BenchTrace.fromEnvironment())
        let configuration = Configuration.current
        options.keys = configuration.keys
        options.colors = configuration.colors
        options.newItemKind = configuration.file.newItemKind.flatMap(ItemKind.named) ?? .login
        let code = await ScreenLauncher.run(vaultPath: vaultPath, options: options)
        if code != 0 { throw ExitCode(code) }
    }
}
