/// A `Screen` in memory: it keeps the last frame and replays scripted input (for tests).
@MainActor
final class MemoryScreen: Screen {
    private(set) var size: Size
    private(set) var frame: Grid
    private(set) var sent: [String] = []
    private(set) var frameCount = 0
    var pendingInput: [ScreenInput] = []

    init(size: Size = .standard) {
        self.size = size
        frame = Grid(size: size)
    }

    func draw(_ grid: Grid) {
        frame = grid
        frameCount += 1
    }

    func nextInput(waitingAtMost milliseconds: Int, wakingOn wake: Int32) -> ScreenInput? {
        guard !pendingInput.isEmpty else { return nil }
        let input = pendingInput.removeFirst()
        if case .resized(let newSize) = input { size = newSize }
        return input
    }

    func send(_ sequence: String) { sent.append(sequence) }

    func invalidate() {}
}
