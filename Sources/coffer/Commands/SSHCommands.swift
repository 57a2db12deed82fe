import ArgumentParser
import CofferAgent
import CofferCore
import Foundation

/// `coffer ssh`: SSH keys as vault items (`ssh-key`), served by the agent's SSH socket.
struct SSHCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssh", abstract: "Keep SSH keys in the vault; the agent (`coffer unlock`) signs with them.",
        discussion: "With SSH_AUTH_SOCK set to `coffer ssh socket`, ssh, ssh-add and git use the vault's keys while "
            + "the agent holds it unlocked; a locked agent offers none. `ssh-add FILE` to that socket stores the key "
            + "in the vault.",
        subcommands: [SSHGenerateCommand.self, SSHImportCommand.self, SSHSocketCommand.self])
}

struct SSHGenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate", abstract: "Make a new SSH key in the vault; prints its authorized_keys line.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The new item's title.") var name: String
    @Option(help: "ed25519, ecdsa (P-256) or rsa (3072 bits).", completion: .list(SSHKeyType.allCases.map(\.rawValue)))
    var type: String = SSHKeyType.ed25519.rawValue
    @Option(help: "The key's comment (default: the title).") var comment: String?
    @OptionGroup var rules: SSHKeyRules

    func validate() throws {
        guard SSHKeyType(rawValue: type) != nil else {
            throw ValidationError("Unknown key type “\(type)”; the types are ed25519, ecdsa, rsa.")
        }
    }

    func run() async throws {
        let key = try SSHKey.generate(SSHKeyType(rawValue: type) ?? .ed25519, comment: comment ?? name)
        let vault = try await global.itemVault()
        _ = try await vault.add(rules.apply(to: key.item(titled: name)))
        Output.line(key.authorizedKey)
    }
}

struct SSHImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Store an OpenSSH private key file in the vault; prints its authorized_keys line.",
        discussion: "For a passphrase-protected file (bcrypt and aes128/192/256-ctr, as ssh-keygen writes them) "
            + "the key's passphrase is asked first: from --key-passphrase-file, else the terminal, else stdin's first "
            + "line. The key is decrypted in memory and stored in the vault without that passphrase. Other files: "
            + "`ssh-add FILE` with SSH_AUTH_SOCK set to `coffer ssh socket` stores any key ssh-add reads.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The new item's title.") var name: String
    @Argument(help: "The private key file (as ssh-keygen writes it).", completion: .file()) var file: String
    @Option(help: ArgumentHelp("Read the key file's passphrase from the first line of this file.", valueName: "file"),
            completion: .file())
    var keyPassphraseFile: String?
    @OptionGroup var rules: SSHKeyRules

    func run() async throws {
        let bytes: Data
        do {
            bytes = try InputFile.read(file, limit: OpenSSHKeyFile.maximumSize, isSecret: true)
        } catch {
            throw CommandFailure(InputFile.reason(error, path: file))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let key: SSHKey
        do {
            key = try OpenSSHKeyFile.read(text)
        } catch .encrypted {
            let passphrase = try PassphraseInput(file: keyPassphraseFile).read(prompt: "Passphrase for the key \(file): ")
            key = try passphrase.withUnsafeBytes { bytes throws(SSHKeyError) in
                var copy = Array(bytes)
                defer { wipe(&copy) }
                return try OpenSSHKeyFile.read(text, passphrase: copy)
            }
        }
        let vault = try await global.itemVault()
        _ = try await vault.add(rules.apply(to: key.item(titled: name)))
        Output.line(key.authorizedKey)
    }
}

/// The agent's rules for a new key, kept in its item (`coffer edit NAME --field hosts=…` changes them).
struct SSHKeyRules: ParsableArguments {
    @Option(name: .customLong("host"), help: ArgumentHelp(
        "Offer the key only to this host, as named in ~/.ssh/known_hosts (repeat for more; default: every host).",
        valueName: "name"))
    var hosts: [String] = []
    @Flag(help: "Ask through $SSH_ASKPASS before each use of the key (refused when SSH_ASKPASS is not set).")
    var confirm = false

    func apply(to item: Item) -> Item {
        var item = item
        if !hosts.isEmpty { item.entry.fields["hosts"] = hosts.joined(separator: " ") }
        if confirm { item.entry.fields["confirm"] = FlagValue.on }
        return item
    }
}

struct SSHSocketCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "socket", abstract: "Print the agent's SSH socket for this vault (the same path every time).",
        discussion: "For a shell rc file: export SSH_AUTH_SOCK=\"$(coffer ssh socket)\".")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        Output.line(AgentPaths.forVault(global.vaultPath).sshSocket)
    }
}

/// A word the shell reads back as itself: as it is when it holds only safe characters, else in
/// single quotes.
enum ShellQuote {
    static func word(_ text: String) -> String {
        let safe = text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+:=@".contains($0)) }
        return safe && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
