import ArgumentParser
import CofferCore
import Foundation

/// The formats `import` and `export` understand.
enum ExchangeFormat: String, ExpressibleByArgument, CaseIterable {
    case json
}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write every item, secrets included, to FILE (created 0600; '-' for stdout).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The file format.") var format: ExchangeFormat = .json
    @Flag(help: "Export even if some items cannot be read (waiting for their key, or damaged).")
    var skipUnreadable = false
    @Argument(help: "The file to write.") var file: String

    func run() async throws {
        let vault = try await global.itemVault()
        let listed = try await vault.items(.everything)
        let unreadable = listed.filter { $0.item == nil }.count
        if unreadable > 0 && !skipUnreadable {
            // A backup that silently misses items is worse than none.
            throw CommandFailure("\(unreadable) item(s) cannot be read yet (waiting for a key from another device, "
                + "or damaged), so nothing was exported; sync and retry, or pass --skip-unreadable.")
        }
        let items = listed.compactMap(\.item).sorted { ($0.title, $0.id) < ($1.title, $1.id) }
        var data = Data(try ItemExchange.text(items.map(ItemExchange.exportObject)).utf8)
        data.append(0x0A)
        defer { wipe(&data) }
        if file == "-" {
            FileHandle.standardOutput.write(data)
            return
        }
        try SecretFile.write(data, to: file)
        Terminal.write("Exported \(items.count) item(s) to \(file).\n")
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Add the items of FILE; all of them or, on any problem, none.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The file format.") var format: ExchangeFormat = .json
    @Argument(help: "The file to read.") var file: String

    func run() async throws {
        guard var data = FileManager.default.contents(atPath: file) else {
            throw CoreError.invalidImport(reason: "\(file) cannot be read")
        }
        defer { wipe(&data) }
        let items = try ItemExchange.parseExport(data, now: .now())
        let vault = try await global.itemVault()
        try await vault.addAll(items)
        Terminal.write("Imported \(items.count) item(s).\n")
    }
}

/// Writes a file of secrets: created 0600 next to its destination, then renamed over it.
enum SecretFile {
    static func write(_ data: Data, to path: String) throws {
        let temporary = path + ".coffer-tmp"
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CoreError.storage(reason: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary)
            throw CoreError.storage(reason: "cannot write \(path): \(error.localizedDescription)")
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CoreError.storage(reason: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
