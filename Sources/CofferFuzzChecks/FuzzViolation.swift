/// A broken invariant found by a fuzz check. (The other kind of finding is a crash.)
public struct FuzzViolation: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// What `body` returns, or a `FuzzViolation` described from its error: for the steps of a check
/// that must not fail on something an earlier step accepted.
func mustSucceed<Value>(_ body: () throws -> Value, else describe: (any Error) -> String) throws -> Value {
    do {
        return try body()
    } catch {
        throw FuzzViolation(describe(error))
    }
}
