import ArgumentParser
import CofferAgent
import CofferCore
import CofferSync
import Foundation

/// `coffer device …` (architecture §9): the account's devices and the messages between them.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "List, invite, rename, lock, sign out or remove the devices of this vault's account.",
        subcommands: [List.self, DeviceInviteCommand.self, Rename.self, Lock.self, Signout.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the account's devices (★ this one).")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let devices = try await DeviceSession.open(global).devices()
            let ordered = devices.sorted { ($0.isCurrent ? 0 : 1, $0.name ?? "~", $0.id) < ($1.isCurrent ? 0 : 1, $1.name ?? "~", $1.id) }
            if output.json {
                Output.line(try ItemExchange.text(ordered.map(DevicePrinter.json)))
            } else {
                let width = ordered.map { DevicePrinter.name($0).count }.max() ?? 0
                ordered.forEach { Output.line(DevicePrinter.line($0, width: width)) }
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename this device (published on the next unlocked sync).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The new name.") var name: String

        func run() async throws {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= 100 else { throw UsageError("A device name has 1 to 100 characters.") }
            try Vault.open(at: global.vaultPath).renameDevice(to: trimmed)
            Output.line("This device is now \u{201C}\(TerminalText.line(trimmed))\u{201D}.")
        }
    }

    struct Lock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lock the screen on another device (within its next sync).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A device name or id prefix.") var name: String?
        @Flag(help: "Every other verified device.") var all = false

        func run() async throws {
            guard (name == nil) == all else { throw UsageError("Name one device, or give --all.") }
            let engine = try await DeviceSession.open(global)
            let devices = try await engine.devices()
            let targets = all ? devices.filter { $0.isVerified && !$0.isCurrent } : [try DeviceSession.pick(name ?? "", in: devices)]
            try await DeviceSession.deliver(.lock, to: targets, with: engine)
        }
    }

    struct Signout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make another device forget the sync account and lock.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A device name or id prefix.") var name: String

        func run() async throws {
            let engine = try await DeviceSession.open(global)
            let target = try DeviceSession.pick(name, in: try await engine.devices())
            try await DeviceSession.deliver(.signout, to: [target], with: engine)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a device from the account; --rotate also changes the account password, and the vault's keys under a new passphrase.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A device name or id prefix.") var name: String
        @Flag(help: "Send a new account password to every other device and give the vault new keys under a new passphrase; the removed one is left with the old ones.")
        var rotate = false
        @Option(help: "With --rotate: read the new passphrase from the first line of this file.") var newPassphraseFile: String?
        @OptionGroup var kdf: KDFOptions

        func run() async throws {
            let engine = try await DeviceSession.open(global)
            let target = try DeviceSession.pick(name, in: try await engine.devices())
            try await engine.remove(device: target.id, rotate: rotate)
            Output.line("Removed \(DevicePrinter.label(target)).")
            fflush(nil)
            if rotate {
                try SyncOutcomePrinter.finish(try await engine.syncOutcome())
                Output.line("The account password changes once every other device has synced and received the new one.")
                // It kept the vault key, every item key and the passphrase: new keys under a new
                // passphrase, and the vault's versions committed to (architecture §9), then sent.
                let vault = try await PasswdCommand.change(global, newPassphraseFile: newPassphraseFile, kdf: try kdf.parameters(), newKeys: true)
                if let engine = try SyncEngine.forAccount(of: vault) { try SyncOutcomePrinter.finish(await engine.sync()) }
                // A kit carries the password it was made with (`RecoveryPayload`): it restores nothing after the change.
                if (try? Vault.open(at: global.vaultPath).database.meta(.recoveryAccount)) != nil {
                    Terminal.write("Your recovery kit carries the old password: once it has changed, "
                                   + "make a new kit with `coffer recovery-kit --rotate` (it voids the old one).\n")
                }
            }
        }
    }
}

/// The unlocked vault and its engine, and the choices the device commands share.
enum DeviceSession {
    static let noAccount = UsageError(AgentFailure.noAccount.message)

    /// The unlocked agent's engine when there is one, else the vault unlocked here and its engine.
    static func open(_ global: GlobalOptions) async throws -> any DeviceControl {
        if let agent = global.agent() { return agent }
        let vault = try await global.unlockedVault()
        guard let engine = try SyncEngine.forAccount(of: vault) else { throw noAccount }
        return engine
    }

    /// The one device `name` means: exact name (any case) first, then an id prefix; not this one.
    static func pick(_ name: String, in devices: [KnownDevice]) throws -> KnownDevice {
        let others = devices.filter { !$0.isCurrent }
        let byName = others.filter { $0.name?.caseInsensitiveCompare(name) == .orderedSame }
        let matches = byName.isEmpty ? others.filter { !name.isEmpty && $0.id.hasPrefix(name.lowercased()) } : byName
        guard let match = matches.first else {
            throw CommandFailure("No other device is named \u{201C}\(TerminalText.name(name))\u{201D} or has an id starting with it; see `coffer device list`.")
        }
        guard matches.count == 1 else {
            throw CommandFailure("\u{201C}\(TerminalText.name(name))\u{201D} matches \(matches.count) devices: "
                + matches.map(DevicePrinter.label).joined(separator: ", ") + "; use a longer id prefix.")
        }
        guard match.isVerified else {
            throw CommandFailure("Device \(match.id) is unverified (its record does not open with this vault's key); it is never sent a message.")
        }
        return match
    }

    /// Queues the message for each device, then syncs to send it; offline, it stays queued.
    static func deliver(_ topic: MessageTopic, to targets: [KnownDevice], with engine: any DeviceControl) async throws {
        try await engine.queue(topic, to: targets.map(\.id))
        Output.line("Queued \(topic.rawValue) for " + (targets.isEmpty ? "no device" : targets.map(DevicePrinter.label).joined(separator: ", ")) + ".")
        fflush(nil)
        try SyncOutcomePrinter.finish(try await engine.syncOutcome())
    }
}

enum DevicePrinter {
    /// A device's name as people see it: another device chose it, so through `TerminalText`.
    static func name(_ device: KnownDevice) -> String {
        TerminalText.line(device.name ?? "?")
    }

    static func label(_ device: KnownDevice) -> String {
        "\(device.name.map { TerminalText.line($0) } ?? "unverified") (\(TerminalText.line(String(device.id.prefix(8)))))"
    }

    static func line(_ device: KnownDevice, width: Int) -> String {
        let mark = device.isCurrent ? "★" : " "
        let name = name(device).padding(toLength: width, withPad: " ", startingAt: 0)
        let verified = device.isVerified ? "" : "  unverified"
        return "\(mark) \(name)  \(TerminalText.line(String(device.id.prefix(8))))  last seen \(device.lastSeen.iso8601)\(verified)"
    }

    static func json(_ device: KnownDevice) -> [String: Any] {
        ["id": device.id, "name": device.name as Any? ?? NSNull(), "current": device.isCurrent,
         "lastSeen": device.lastSeen.iso8601, "verified": device.isVerified, "capabilities": device.capabilities]
    }
}
