import CofferCore
import Foundation

/// Starts helper programs (the clipboard commands, `coffer clipboard-clear`) with posix_spawn.
///
/// Not Foundation's `Process`: on Linux it counts a child as running for as long as any process
/// holds a descriptor the child inherited, so an `xclip` that forks to serve the selection looked
/// alive until its daemon quit, and every copy waited for the timeout.
public enum ChildProcess {
    /// Starts `path` with `input` written to its stdin (then closed), stdout on `output` (a pipe's
    /// write end, say) and stderr on `errors` (default: `output`), each else /dev/null; `newSession`
    /// detaches it from the terminal's session (it outlives a closed terminal); `name` is its
    /// argv[0] (default: the file's name). Nil when it cannot start.
    public static func start(_ path: String, name: String? = nil, arguments: [String], input: Data?,
                             output: Int32? = nil, errors: Int32? = nil, newSession: Bool = false) -> pid_t? {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { return nil }
        // Neither end may leak into the child but as its stdin (dup2 clears the flag on fd 0).
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        defer { close(descriptors[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptors[0], STDIN_FILENO)
        for (target, source) in [(STDOUT_FILENO, output), (STDERR_FILENO, errors ?? output)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        for descriptor in inheritableDescriptors() where descriptor > STDERR_FILENO {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if newSession { posix_spawnattr_setflags(&attributes, spawnInNewSession) }
        var argv = ([name ?? (path as NSString).lastPathComponent] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        let status = posix_spawn(&child, path, &actions, &attributes, &argv, environ)
        close(descriptors[0])
        guard status == 0 else { return nil }
        if let input {
            // A helper that exits without reading must not kill us with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            input.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(descriptors[1], bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
        return child
    }

    /// Runs `path` and returns what it writes on stdout (stderr is dropped), read through a pipe
    /// and never through a file: the output can be a secret (the clipboard). Nil when it cannot
    /// start, fails, writes more than `limit` bytes or takes longer than `seconds`.
    public static func output(of path: String, arguments: [String], upTo seconds: TimeInterval,
                              limit: Int = 1 << 20) -> [UInt8]? {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { return nil }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        let child = start(path, arguments: arguments, input: nil, output: descriptors[1], errors: null >= 0 ? null : nil)
        if null >= 0 { close(null) }
        close(descriptors[1])  // the child's copy is the only writer left: its exit ends the pipe
        defer { close(descriptors[0]) }
        guard let child else { return nil }
        let deadline = Date().addingTimeInterval(seconds)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { wipe(&chunk) }
        var isComplete = false
        while !isComplete, bytes.count <= limit {
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            var ready = pollfd(fd: descriptors[0], events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&ready, 1, left) > 0 else { break }
            let count = read(descriptors[0], &chunk, chunk.count)
            if count > 0 { bytes.append(contentsOf: chunk[..<count]) } else if count == 0 { isComplete = true }
            else if errno != EINTR { break }
        }
        let status = wait(for: child, upTo: max(0.1, deadline.timeIntervalSinceNow))
        guard isComplete, bytes.count <= limit, status == 0 else {
            wipe(&bytes)
            return nil
        }
        return bytes
    }

    /// Waits up to `seconds` for `child` to exit; its exit status, or nil after killing it when it
    /// took too long (a hung X server must not hang the caller).
    @discardableResult
    public static func wait(for child: pid_t, upTo seconds: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let result = waitpid(child, &status, WNOHANG)
            if result == child { return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F) }
            if result < 0 { return nil }
            usleep(5_000)
        }
        kill(child, SIGKILL)
        _ = waitpid(child, &status, 0)
        return nil
    }

    /// Open descriptors without FD_CLOEXEC: a child must not keep them, and a forking child (xclip)
    /// would keep them for as long as its daemon runs (a test harness's pipe, say, or the socket
    /// Foundation watches to see a process end).
    static func inheritableDescriptors() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap(Int32.init).filter { descriptor in
            let flags = fcntl(descriptor, F_GETFD)
            return flags != -1 && flags & FD_CLOEXEC == 0
        }
    }

    /// glibc's POSIX_SPAWN_SETSID, which Swift does not import (it needs _GNU_SOURCE).
    private static let spawnInNewSession: Int16 = 0x80
}
