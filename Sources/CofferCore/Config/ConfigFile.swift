import Foundation

/// Where the configuration file is and how it is read: `$XDG_CONFIG_HOME/coffer/config.toml`,
/// `$XDG_CONFIG_HOME` being `$HOME/.config` when unset or relative (the XDG Base Directory rules,
/// as `UserDirectories.dataHome` applies them to the vault).
public enum ConfigFile {
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        (UserDirectories.configHome(environment: environment) as NSString).appendingPathComponent("coffer/config.toml")
    }

    /// The file's settings; an empty configuration when there is no file. A file too large is
    /// refused from its size, before a byte is read.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigProblem) -> CofferConfig {
        let path = path(environment: environment)
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return CofferConfig() }
            throw ConfigProblem(line: nil, reason: "cannot be read: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw ConfigProblem(line: nil, reason: "is not a regular file") }
        // The file chooses the vault and what keys do: one that someone else may write could
        // point Coffer at their vault or swap two keys. Refused as OpenSSH refuses such a config.
        if status.st_uid != geteuid() && status.st_uid != 0 {
            throw ConfigProblem(line: nil, reason: "belongs to another user (uid \(status.st_uid)): it must be yours")
        }
        if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw ConfigProblem(line: nil, reason: "can be written by others (mode \(String(status.st_mode & 0o777, radix: 8))): "
                + "`chmod go-w` it")
        }
        guard status.st_size <= ConfigDocument.sizeLimit else {
            throw ConfigProblem(line: nil, reason: "is larger than \(ConfigDocument.sizeLimit / 1024) KiB")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ConfigProblem(line: nil, reason: "cannot be read")
        }
        defer { try? handle.close() }
        // At most one byte past the limit: a file that grew since stat is still refused.
        let data = (try? handle.read(upToCount: ConfigDocument.sizeLimit + 1)) ?? Data()
        let document = try ConfigDocument.parse(Array(data))
        return try CofferConfig(document, home: UserDirectories.home(environment: environment))
    }
}
