import Foundation

/// The user's directories as the environment names them, for every part of Coffer alike: the
/// default vault, `~/` in a path typed on the screen, the agent's `known_hosts`.
///
/// `$HOME` is read first because it is what the user set: Foundation's `NSHomeDirectory()` and
/// `homeDirectoryForCurrentUser` read the password database on Linux, so with `HOME=/elsewhere`
/// the first-run screen offered `/root/.local/share/coffer/vault.db` while `~/` meant `/elsewhere`.
public enum UserDirectories {
    /// `$HOME` when set and absolute, else the account's home from the password database.
    public static func home(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        absolute(environment["HOME"]) ?? NSHomeDirectory()
    }

    /// Where user data goes (the XDG Base Directory specification): `$XDG_DATA_HOME` when set and
    /// absolute (the specification says a relative one is to be ignored), else `$HOME/.local/share`.
    public static func dataHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        absolute(environment["XDG_DATA_HOME"]) ?? (home(environment: environment) as NSString).appendingPathComponent(".local/share")
    }

    /// Where user configuration goes: `$XDG_CONFIG_HOME` when set and absolute, else `$HOME/.config`.
    public static func configHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        absolute(environment["XDG_CONFIG_HOME"]) ?? (home(environment: environment) as NSString).appendingPathComponent(".config")
    }

    private static func absolute(_ path: String?) -> String? {
        guard let path, path.hasPrefix("/") else { return nil }
        return path
    }
}
