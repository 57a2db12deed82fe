import Foundation

/// Which source wins for a setting several name: a flag, then an environment variable, then
/// `config.toml`, then the built-in default. The rules are here, apart from the reading, so a
/// table of tests covers them.
public enum ConfigPrecedence {
    /// The first value given, in the order flag, environment, file; else `defaultValue`.
    public static func resolve<Value>(flag: Value?, environment: Value?, file: Value?, default defaultValue: Value) -> Value {
        flag ?? environment ?? file ?? defaultValue
    }

    /// The vault when `--vault` is not given: `$COFFER_VAULT`, then the file's `vault`, then
    /// `$XDG_DATA_HOME/coffer/vault.db` (`UserDirectories.dataHome`).
    public static func defaultVaultPath(environment: [String: String], config: CofferConfig) -> String {
        let variable = environment["COFFER_VAULT"].flatMap { $0.isEmpty ? nil : $0 }
        return resolve(flag: nil, environment: variable, file: config.vault,
                       default: (UserDirectories.dataHome(environment: environment) as NSString).appendingPathComponent("coffer/vault.db"))
    }
}
