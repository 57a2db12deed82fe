/// Where frames go and keys come from: ncurses for real, memory in tests.
@MainActor
protocol Screen: AnyObject {
    var size: Size { get }
    /// Shows `grid`; an implementation may write only what changed since the last frame.
    func draw(_ grid: Grid)
    /// The next input, waiting at most `milliseconds`, or less when `wake` (a descriptor, -1 for
    /// none) becomes readable; nil when no input came.
    func nextInput(waitingAtMost milliseconds: Int, wakingOn wake: Int32) -> ScreenInput?
    /// Writes a control sequence straight to the terminal (OSC 52 for the clipboard).
    func send(_ sequence: String)
    /// Forgets the last frame so the next draw repaints every cell.
    func invalidate()
}

/// What the terminal reports.
enum ScreenInput: Sendable, Equatable {
    case key(Key)
    case resized(Size)
    /// SIGINT, SIGTERM or SIGHUP arrived.
    case signal(Int32)
}
