/// Choices a check makes from its input's own bytes (which bit to flip, which item to seal, which
/// forgery to try) instead of doing every one on every input: a run still makes each choice many
/// times over, and a finding replays from its file. FNV-1a of the bytes seeds a 64-bit LCG.
struct InputChoice {
    private var state: UInt64

    init<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        state = bytes.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// One number in `0..<bound` from `bytes`: the first `next(below:)` of their choice.
    static func one<Bytes: Sequence>(below bound: Int, from bytes: Bytes) -> Int where Bytes.Element == UInt8 {
        var choice = InputChoice(bytes)
        return choice.next(below: bound)
    }

    /// A number in `0..<bound` (`bound` > 0).
    mutating func next(below bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}
