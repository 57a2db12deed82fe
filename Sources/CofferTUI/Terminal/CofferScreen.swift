import CofferCore
import Foundation

/// The entry point of `coffer` with no command: the full-screen vault browser.
public enum CofferScreen {
    /// Opens the vault at `vaultPath` (or offers to create one), runs the screen until the user
    /// quits or a signal arrives, and restores the terminal.
    ///
    /// - Returns: the exit code: 0 after `q`, 128 + the signal after SIGINT/SIGTERM/SIGHUP, 1 when
    ///   the screen cannot start (one sentence on stderr says why: no terminal, unknown `TERM`,
    ///   unreadable vault).
    @MainActor
    public static func run(vaultPath: String, services: ScreenServices, options: ScreenOptions = ScreenOptions()) async -> Int32 {
        var vault: Vault?
        var summary: VaultSummary?
        if FileManager.default.fileExists(atPath: vaultPath) {
            do {
                // Counting 100,000 pending changes takes longer than the rest of the start: the
                // first frame shows the sync facts, and the first look for changes brings the counts.
                let opened = try Vault.open(at: vaultPath)
                summary = try VaultSummary(of: opened, isCounted: false)
                vault = opened
            } catch {
                return fail("\(error)")
            }
        }
        let screen: NcursesScreen
        do {
            screen = try NcursesScreen.start(colors: options.colors)
        } catch {
            return fail("\(error)")
        }
        let state = ScreenState(vaultPath: vaultPath, summary: summary, settings: options.settings, size: screen.size,
                                now: services.now())
        let runtime = Runtime(state: state, vault: vault, screen: screen, services: services, options: options)
        let code = await runtime.run()
        screen.stop()
        return code
    }

    /// The sentence may echo a path or `TERM`: written like every text for people (`TerminalText`).
    private static func fail(_ sentence: String) -> Int32 {
        FileHandle.standardError.write(Data((TerminalText.lines(sentence) + "\n").utf8))
        return 1
    }
}
