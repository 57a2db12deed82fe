/// A `Screen` in memory: it keeps the last frame and replays scripted input (for tests).
@MainActor
public final class MemoryScreen: Screen {
    public private(set) var size: Size
    public private(set) var frame: Grid
    public private(set) var sent: [String] = []
    public private(set) var frameCount = 0
    public var pendingInput: [ScreenInput] = []

    public init(size: Size = .standard) {
        self.size = size
        frame = Grid(size: size)
    }

    public func draw(_ grid: Grid) {
        frame = grid
        frameCount += 1
    }

    public func nextInput(waitingAtMost milliseconds: Int, wakingOn wake: Int32) -> ScreenInput? {
        guard !pendingInput.isEmpty else { return nil }
        let input = pendingInput.removeFirst()
        if case .resized(let newSize) = input { size = newSize }
        return input
    }

    public func send(_ sequence: String) { sent.append(sequence) }

    public func invalidate() {}
}
