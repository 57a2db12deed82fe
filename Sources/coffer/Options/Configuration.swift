import CofferCore
import CofferTUI
import Foundation

/// `config.toml` as this run of `coffer` applies it: read once, before any command, so a file
/// Coffer cannot read stops every command alike with the same sentence (exit 2), and each
/// setting is then taken where its flag is (`ConfigPrecedence`: flag > environment > file > default).
struct Configuration: Sendable {
    var file = CofferConfig()
    var keys = KeyMap.standard
    var colors = ScreenColors()

    /// Every sentence of things the file names and this version ignores.
    var warnings: [String] { file.warnings + keys.warnings + colors.warnings }

    /// The configuration of this process (read on first use; `check()` has stopped the run if the
    /// file was refused, so the empty fallback is never what a command runs with).
    static var current: Configuration { (try? loaded.get()) ?? Configuration() }

    private static let loaded: Result<Configuration, ConfigProblem> = Result { () throws(ConfigProblem) in
        try read(environment: ProcessInfo.processInfo.environment)
    }

    /// Reads the file of `environment` and checks its keys and colours.
    static func read(environment: [String: String]) throws(ConfigProblem) -> Configuration {
        let file = try ConfigFile.load(environment: environment)
        return Configuration(file: file, keys: try KeyMap(file.keys), colors: try ScreenColors(file.colors))
    }

    /// At the start of every command: a refused file is its sentence and exit 2, what the file
    /// names and Coffer ignores one warning each on stderr, and the run goes on.
    static func check() {
        switch loaded {
        case .failure(let problem):
            Terminal.write(TerminalText.lines(problem.sentence(file: ConfigFile.path())) + "\n")
            exit(ExitStatus.usage)
        case .success(let configuration):
            for warning in configuration.warnings {
                Terminal.write("Warning: " + TerminalText.lines(warning) + " (\(TerminalText.line(ConfigFile.path())))\n")
            }
        }
    }

    /// The auto-lock and clipboard seconds in force: the flag's (nil: not given), else the file's,
    /// else the default.
    func seconds(autoLockFlag: Double?, clipboardFlag: Double?) -> (autoLock: Double, clipboard: Double) {
        (ConfigPrecedence.resolve(flag: autoLockFlag, environment: nil, file: file.autoLockSeconds.map(Double.init),
                                  default: ScreenStart.defaultAutoLockSeconds),
         ConfigPrecedence.resolve(flag: clipboardFlag, environment: nil, file: file.clipboardSeconds.map(Double.init),
                                  default: ScreenStart.defaultClipboardSeconds))
    }
}
