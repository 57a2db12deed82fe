import XCTest
@testable import CofferCore

/// config.toml's settings: bounds, warnings for what this version does not know, where the file
/// is, and which source wins (flag > environment > file > default).
final class CofferConfigTests: XCTestCase {
    private func config(_ text: String) throws -> CofferConfig {
        try CofferConfig(try ConfigDocument.parse(Array(text.utf8)), home: "/home/ann")
    }

    func testSettings() throws {
        let settings = try config("""
            vault = "~/vaults/p.db"
            auto-lock = 600
            clipboard-seconds = 20
            new-item-kind = "note"
            [keys]
            help = "F1"
            [colors]
            error = "magenta"
            """)
        XCTAssertEqual(settings.vault, "/home/ann/vaults/p.db")
        XCTAssertEqual(settings.autoLockSeconds, 600)
        XCTAssertEqual(settings.clipboardSeconds, 20)
        XCTAssertEqual(settings.newItemKind, "note")
        XCTAssertEqual(settings.keys.map(\.key), ["help"])
        XCTAssertEqual(settings.colors.map(\.key), ["error"])
        XCTAssertEqual(settings.warnings, [])
    }

    /// Nothing in the file turns a protection off: never locking and never clearing the
    /// clipboard are refused (the flags still allow them for one run).
    func testBoundsKeepCofferSafe() {
        let refused: [(String, String)] = [
            ("auto-lock = 0", "--auto-lock 0"), ("auto-lock = 9", "10 to 86400"), ("auto-lock = 86401", "10 to 86400"),
            ("clipboard-seconds = 0", "always cleared"), ("clipboard-seconds = 601", "1 to 600"),
            ("auto-lock = \"300\"", "a whole number of seconds"), ("vault = 3", "a string in quotes"),
            ("vault = \"relative/v.db\"", "relative path"), ("new-item-kind = \"car\"", "login, note, card"),
        ]
        for (text, reason) in refused {
            XCTAssertThrowsError(try config(text), text) { error in
                let problem = error as? ConfigProblem
                XCTAssertEqual(problem?.line, 1, text)
                XCTAssertTrue(problem?.reason.contains(reason) == true, "\(text): \(problem?.reason ?? "")")
            }
        }
        XCTAssertEqual(try config("auto-lock = 10\nclipboard-seconds = 1").autoLockSeconds, 10)
    }

    /// Unknown keys and tables warn in one sentence and the rest applies: a file written for a
    /// newer version must not keep anyone from their vault.
    func testUnknownKeysWarnAndTheRestApplies() throws {
        let settings = try config("autolock = 5\nauto-lock = 60\n[theme]\nx = 1")
        XCTAssertEqual(settings.autoLockSeconds, 60)
        XCTAssertEqual(settings.warnings, ["Coffer does not know “autolock” (line 1), [theme] (line 3) and ignores them."])
    }

    func testThePathFollowsXDGThenHome() {
        XCTAssertEqual(ConfigFile.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]), "/x/coffer/config.toml")
        XCTAssertEqual(ConfigFile.path(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"]), "/h/.config/coffer/config.toml")
        XCTAssertEqual(ConfigFile.path(environment: ["HOME": "/h"]), "/h/.config/coffer/config.toml")
    }

    func testLoadingAMissingFileIsNoConfiguration() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        XCTAssertEqual(try ConfigFile.load(environment: ["XDG_CONFIG_HOME": directory.path]), CofferConfig())
    }

    func testLoadingRefusesALargeFileFromItsSize() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("coffer"), withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("coffer/config.toml")
        try Data(repeating: 0x23, count: ConfigDocument.sizeLimit + 1).write(to: file)
        XCTAssertThrowsError(try ConfigFile.load(environment: ["XDG_CONFIG_HOME": directory.path])) { error in
            XCTAssertEqual((error as? ConfigProblem)?.reason, "is larger than 64 KiB")
        }
        try Data("auto-lock = 30\n".utf8).write(to: file)
        XCTAssertEqual(try ConfigFile.load(environment: ["XDG_CONFIG_HOME": directory.path]).autoLockSeconds, 30)
    }

    /// A file others may write could choose the vault or swap keys: refused.
    func testLoadingRefusesAFileOthersMayWrite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("coffer"), withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("coffer/config.toml")
        try Data("auto-lock = 30\n".utf8).write(to: file)
        chmod(file.path, 0o666)
        XCTAssertThrowsError(try ConfigFile.load(environment: ["XDG_CONFIG_HOME": directory.path])) { error in
            XCTAssertEqual((error as? ConfigProblem)?.reason, "can be written by others (mode 666): `chmod go-w` it")
        }
        chmod(file.path, 0o644)
        XCTAssertEqual(try ConfigFile.load(environment: ["XDG_CONFIG_HOME": directory.path]).autoLockSeconds, 30)
    }

    /// flag > environment > file > default, for every combination.
    func testPrecedence() {
        for flag in [nil, 1] as [Int?] {
            for environment in [nil, 2] as [Int?] {
                for file in [nil, 3] as [Int?] {
                    let expected = flag ?? environment ?? file ?? 4
                    XCTAssertEqual(ConfigPrecedence.resolve(flag: flag, environment: environment, file: file, default: 4), expected)
                }
            }
        }
    }

    func testTheDefaultVaultPath() throws {
        let file = try config("vault = \"/from/file.db\"")
        let home = ["HOME": "/h"]
        XCTAssertEqual(ConfigPrecedence.defaultVaultPath(environment: home.merging(["COFFER_VAULT": "/env.db"]) { $1 }, config: file), "/env.db")
        XCTAssertEqual(ConfigPrecedence.defaultVaultPath(environment: home.merging(["COFFER_VAULT": ""]) { $1 }, config: file), "/from/file.db")
        XCTAssertEqual(ConfigPrecedence.defaultVaultPath(environment: home, config: CofferConfig()), "/h/.local/share/coffer/vault.db")
    }
}
