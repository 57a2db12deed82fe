import Foundation

/// The one place commands read the time for codes (TOTP): the skew-corrected clock of DESIGN §10
/// replaces this when it lands; everything below takes `now` as a parameter.
enum CommandClock {
    static func now() -> Date { Date() }
}
