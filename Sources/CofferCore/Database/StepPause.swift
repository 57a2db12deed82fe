/// Named places inside one actor call where a test can let another process's step in (issue 42,
/// finding 4: an unlock half-way through taking an epoch while another process re-keys). Bound
/// only by tests, for the task that binds it, as `PassphraseKeys.stretching` is; the product
/// never binds it, and reaching a point then costs one task-local read.
package enum StepPause {
    @TaskLocal package static var hook: (@Sendable (String) -> Void)?

    @inline(__always)
    static func reach(_ name: String) {
        hook?(name)
    }
}
