import CofferCore
import Foundation

/// A password-store (`pass`) directory: every `.gpg` file under it, decrypted with the user's
/// `gpg`, read as a `PassEntry`. Hidden files and directories (`.git`, `.gpg-id`) are not entries.
struct PassStore {
    let directory: String
    /// Per file; a passphrase prompt gpg cannot show in batch mode fails rather than hangs.
    static let timeout: TimeInterval = 30

    /// The store's entries, and the `.gpg` paths skipped because they lead out of the store (a
    /// symbolic link to a file elsewhere, say `~/.ssh/…` encrypted by someone else).
    func drafts(progress: ImportProgress) throws -> (drafts: [ImportDraft], outside: [String]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
              let root = Self.resolved(directory) else {
            throw CoreError.invalidImport(reason: "\(directory) is not a password-store directory")
        }
        guard let walker = FileManager.default.enumerator(atPath: directory) else {
            throw CoreError.invalidImport(reason: "\(directory) cannot be read")
        }
        var paths: [String] = []
        var outside: [String] = []
        while let path = walker.nextObject() as? String {
            if path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            guard path.hasSuffix(".gpg") else { continue }
            let target = Self.resolved((directory as NSString).appendingPathComponent(path))
            if let target, target.hasPrefix(root + "/") { paths.append(path) } else { outside.append(path) }
        }
        paths.sort()
        var drafts: [ImportDraft] = []
        for path in paths {
            let full = (directory as NSString).appendingPathComponent(path)
            do {
                try InputFile.check(full, limit: InputFile.passEntryLimit)
            } catch {
                throw CoreError.invalidImport(reason: InputFile.reason(error, path: full))
            }
            var plaintext = try Self.decrypt(full, name: full)
            defer { wipe(&plaintext) }
            guard let text = String(data: plaintext, encoding: .utf8) else {
                throw CoreError.invalidImport(reason: "\(directory) entry \(path): the decrypted text is not valid UTF-8")
            }
            let modified = (try? FileManager.default.attributesOfItem(atPath: full)[.modificationDate] as? Date).map(Timestamp.init)
            drafts.append(PassEntry.draft(path: path, text: text, modified: modified))
            progress.advance()
        }
        return (drafts, outside.sorted())
    }

    /// `path` with every symbolic link resolved; nil when it does not lead anywhere.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// `gpg --batch --quiet --decrypt FILE`, its stdout only (gpg's warnings on stderr must not
    /// become a password). Not Foundation's Process: gpg may start gpg-agent, which keeps gpg's
    /// descriptors, and Process would wait for it; here the pipe is read until gpg itself exits.
    static func decrypt(_ path: String, name: String) throws -> Data {
        var output: [Int32] = [0, 0], errors: [Int32] = [0, 0]
        guard pipe(&output) == 0, pipe(&errors) == 0 else { throw CoreError.storage(reason: "cannot create a pipe") }
        for descriptor in output + errors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, errors[1], STDERR_FILENO)
        // `--` first: a file named `--output=…` or `--exec…` is a path to gpg, never an option.
        let words: [String] = ["gpg", "--batch", "--quiet", "--decrypt", "--", path]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        let status = posix_spawnp(&child, "gpg", &actions, nil, &argv, environ)
        close(output[1])
        close(errors[1])
        defer {
            close(output[0])
            close(errors[0])
        }
        guard status == 0 else {
            throw CoreError.invalidImport(reason: "gpg cannot be started (\(String(cString: strerror(status)))); install GnuPG to import a password store")
        }
        for descriptor in [output[0], errors[0]] { _ = fcntl(descriptor, F_SETFL, O_NONBLOCK) }
        var plaintext = Data(), message = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var exitStatus: Int32?
        while exitStatus == nil {
            drain(output[0], into: &plaintext)
            drain(errors[0], into: &message)
            var raw: Int32 = 0
            if waitpid(child, &raw, WNOHANG) == child {
                exitStatus = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            } else if Date() > deadline {
                kill(child, SIGKILL)
                _ = waitpid(child, &raw, 0)
                wipe(&plaintext)
                throw CoreError.invalidImport(reason: "gpg took over \(Int(timeout)) s to decrypt \(name)")
            } else {
                usleep(2_000)
            }
        }
        drain(output[0], into: &plaintext)
        drain(errors[0], into: &message)
        guard exitStatus == 0 else {
            wipe(&plaintext)
            let reason = String(decoding: message, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "exit \(exitStatus ?? -1)"
            throw CoreError.invalidImport(reason: "gpg cannot decrypt \(name) (\(reason.trimmingCharacters(in: .whitespaces)))")
        }
        return plaintext
    }

    /// Reads what the pipe holds now, without waiting.
    private static func drain(_ descriptor: Int32, into data: inout Data) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        wipe(&buffer)
    }
}
