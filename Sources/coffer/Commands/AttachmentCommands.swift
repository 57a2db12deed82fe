import ArgumentParser
import CofferCore
import Foundation

/// `coffer attach NAME FILE`: keeps a file (at most 16 MiB) with an item, sealed with the item's key.
struct AttachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach", abstract: "Keep a file (at most 16 MiB) with an item; '-' reads it from stdin.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @Argument(help: ArgumentHelp("The file to keep; '-' reads it from stdin (then give --name).", valueName: "file"))
    var file: String
    @Option(help: "The name the file is kept under (default: the file's own name).") var name: String?

    func run() async throws {
        let name = self.name ?? (file == "-" ? nil : URL(fileURLWithPath: file).lastPathComponent)
        guard let name, !name.isEmpty else { throw ValidationError("A file read from stdin needs --name NAME.") }
        var data = try Self.read(file)
        defer { wipe(&data) }
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        let saved = try await vault.attach(data, named: name, to: item.id)
        Terminal.write("Kept “\(TerminalText.line(name))” (\(data.count) bytes) with “\(TerminalText.line(saved.title))”.\n")
    }

    /// The file's bytes, refused past 16 MiB in one sentence before more is read.
    static func read(_ path: String) throws -> Data {
        do {
            return try InputFile.read(path == "-" ? "/dev/stdin" : path, limit: Attachment.sizeLimit, allowsStreams: path == "-")
        } catch .tooLarge(let size, _) {
            throw CoreError.attachmentTooLarge(size: size)
        } catch {
            throw CommandFailure("The file cannot be kept: \(InputFile.reason(error, path: path)).")
        }
    }
}

/// `coffer attachments NAME`: the item's files, without their contents.
struct AttachmentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "attachments", abstract: "List an item's files.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let item = try await target.item(in: try await global.itemVault())
        if output.json {
            Output.line(try ItemExchange.text(item.attachments.map(ItemExchange.attachmentSummary)))
            return
        }
        if item.attachments.isEmpty { Output.line("No files.") }
        let rows = item.attachments.map { [TerminalText.line($0.name), "\($0.size) bytes", $0.added.iso8601, $0.id] }
        for line in Table.format(rows) { Output.line(line) }
    }
}

/// `coffer attachment NAME FILE [--output PATH]`: one file's bytes, checked against the item.
struct AttachmentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachment", abstract: "Write one of an item's files to --output PATH (0600), or to stdout when it is not a terminal.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @Argument(help: ArgumentHelp("The file: its name or id.", valueName: "file")) var file: String
    @Option(help: "Where to write it (created 0600).") var output: String?
    @Flag(help: "Replace the file at --output if there is one.") var force = false

    func run() async throws {
        if output == nil, isatty(STDOUT_FILENO) != 0 {
            throw ValidationError("The file's bytes would go to the terminal; give --output PATH or pipe it.")
        }
        // `lstat`, not `fileExists` (which follows a link): a dangling symlink at the path is
        // something there too, and is replaced only with --force.
        if let output, !force, PrivateFile.exists(output) { throw PrivateFile.Failure.exists(output) }
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        var (attachment, data) = try await vault.attachmentData(file, of: item)
        defer { wipe(&data) }
        if let output {
            // A temporary file of an unpredictable name beside it, created exclusively (a file
            // planted at a fixed `OUT.coffer-tmp` blocked the write), linked in only if the name
            // is still free (a link planted since is refused), renamed over it with --force.
            try PrivateFile.write(data, to: output, replacing: force)
            Terminal.write("Wrote “\(TerminalText.line(attachment.name))” (\(data.count) bytes) to \(TerminalText.line(output)).\n")
        } else {
            Output.raw(data)
        }
    }
}

/// `coffer detach NAME FILE`: removes a file from an item, here at once and everywhere at the next sync.
struct DetachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "detach", abstract: "Remove one of an item's files.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @Argument(help: ArgumentHelp("The file: its name or id.", valueName: "file")) var file: String

    func run() async throws {
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        let saved = try await vault.detach(file, from: item.id)
        Terminal.write("Removed “\(TerminalText.line(file))” from “\(TerminalText.line(saved.title))”.\n")
    }
}
