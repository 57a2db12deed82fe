import CofferCore
import Foundation

/// How `coffer run` starts the program: in coffer's place (`exec`), or as a child whose output
/// coffer masks (`runMasked`).
enum ProgramRun {
    /// The file `name` means: itself when it holds a `/`, else the first executable regular file of
    /// that name on `searchPath` — coffer's own PATH, never one a dotenv file sets, so a file from
    /// elsewhere cannot choose which program receives the secrets.
    static func locate(_ name: String, searchPath: String) -> String? {
        if name.contains("/") { return name }
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            var status = stat()
            if stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Replaces this process with `path`: the program keeps the terminal, its signals and its exit
    /// status reach the shell as they would without coffer, and coffer's memory (keys, the
    /// resolved values but those in the environment) is gone. Returns only on failure, with errno.
    static func exec(_ path: String, arguments: [String], environment: [String: String]) -> Int32 {
        // A blocked signal stays blocked across exec: clear whatever mask this thread has (were it
        // a dispatch worker's, which blocks signals, Ctrl-C would never reach the program).
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        let argv = cStrings(arguments)
        let envp = cStrings(environment.map { "\($0.key)=\($0.value)" }.sorted())
        defer { for pointer in argv + envp { free(pointer) } }
        execve(path, argv, envp)
        return errno
    }

    /// Runs `path` with stdin and the terminal's signals, its stdout and stderr read through pipes
    /// and written to coffer's with every one of `secrets` replaced (`OutputMasker`). Returns its
    /// exit status, or 128+N when signal N ended it (as a shell reports it); nil when it cannot start.
    static func runMasked(_ path: String, arguments: [String], environment: [String: String], secrets: [String]) -> Int32? {
        var outputs: [[Int32]] = [[0, 0], [0, 0]]
        for index in outputs.indices {
            guard pipe(&outputs[index]) == 0 else { return nil }
            for descriptor in outputs[index] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, outputs[0][1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, outputs[1][1], STDERR_FILENO)
        // The terminal's Ctrl-C and Ctrl-\ are the program's to handle; coffer waits for its end
        // (as a shell does for a foreground job) and passes on a SIGTERM or SIGHUP sent to it.
        let handled = [SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE]
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in handled { sigaddset(&defaults, signal) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        for signal in handled { Glibc.signal(signal, SIG_IGN) }
        let argv = cStrings(arguments)
        let envp = cStrings(environment.map { "\($0.key)=\($0.value)" }.sorted())
        var child = pid_t()
        let started = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        for pointer in argv + envp { free(pointer) }
        close(outputs[0][1])
        close(outputs[1][1])
        guard started == 0 else {
            close(outputs[0][0])
            close(outputs[1][0])
            return nil
        }
        let forwarding = [SIGTERM, SIGHUP].map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { kill(child, signal) }
            source.resume()
            return source
        }
        defer { forwarding.forEach { $0.cancel() } }
        pump([outputs[0][0], outputs[1][0]], to: [STDOUT_FILENO, STDERR_FILENO], secrets: secrets)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Copies each source to its target, masked, until every source has ended.
    private static func pump(_ sources: [Int32], to targets: [Int32], secrets: [String]) {
        var maskers = sources.map { _ in OutputMasker(values: secrets) }
        var watched = sources.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var open = sources.count
        while open > 0 {
            if poll(&watched, nfds_t(watched.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in watched.indices where watched[index].fd >= 0 && watched[index].revents != 0 {
                let count = read(watched[index].fd, &buffer, buffer.count)
                if count > 0 {
                    writeAll(maskers[index].feed(buffer[..<count]), to: targets[index])
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    writeAll(maskers[index].finish(), to: targets[index])
                    close(watched[index].fd)
                    watched[index].fd = -1
                    open -= 1
                }
            }
        }
        wipe(&buffer)
    }

    /// Writes `bytes`; a closed reader (`| head`) drops the rest, as the program keeps being read.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }

    private static func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] {
        strings.map { strdup($0) } + [nil]
    }
}
