/// A broken invariant found by a fuzz check. (The other kind of finding is a crash.)
public struct FuzzViolation: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
