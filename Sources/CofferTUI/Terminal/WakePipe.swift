import Foundation

/// Wakes the input loop from another thread: background work writes a byte, and the loop's wait
/// for a key (a `poll` on the terminal and this pipe) returns. So the loop can sleep until
/// something happens instead of waking every few milliseconds to look.
final class WakePipe: @unchecked Sendable {
    /// The end the loop waits on; -1 when the pipe could not be made (the loop then just times out).
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        } else {
            ends = [-1, -1]
        }
        readDescriptor = ends[0]
        writeDescriptor = ends[1]
    }

    deinit {
        if readDescriptor >= 0 { close(readDescriptor) }
        if writeDescriptor >= 0 { close(writeDescriptor) }
    }

    /// Never blocks: a full pipe already holds a wake-up.
    func wake() {
        guard writeDescriptor >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe, so the next wait sleeps until the next `wake`.
    func drain() {
        guard readDescriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }
}
