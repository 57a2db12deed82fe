import CofferTestSupport
import Foundation
import XCTest
@testable import CofferCore

/// The same secrets, parameters and times through `TOTP` and Debian's `oathtool` (needs it installed).
final class OathtoolComparisonTests: XCTestCase {
    func testCodesMatchOathtoolForSeededSecretsAndTimes() throws {
        var random = SeededGenerator(seed: 6238)
        let algorithms: [TOTP.Algorithm] = [.sha1, .sha256, .sha512]
        let periods = [30, 60, 15, 45, 1]
        // Times around the epoch, the 2038 boundary, period edges and seeded times up to 2100.
        var times: [TimeInterval] = [0, 29, 30, 59, 60, 2_147_483_647, 2_147_483_648, 1_700_000_000]
        for _ in 0..<22 { times.append(TimeInterval(UInt64.random(in: 0...4_102_444_800, using: &random))) }
        for (index, time) in times.enumerated() {
            let length = [10, 16, 20, 32, 64, 11][index % 6]
            let secret = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let algorithm = algorithms[index % 3]
            let digits = 6 + index % 3
            let period = periods[index % periods.count]
            let base32 = Base32.encode(secret)
            let now = Date(timeIntervalSince1970: time)
            let expected = try Oathtool.totp(base32: base32, algorithm: algorithm.rawValue.lowercased(), digits: digits,
                                             period: period, at: now)
            let uri = "otpauth://totp/Test:case\(index)?secret=\(base32)&algorithm=\(algorithm.rawValue)&digits=\(digits)&period=\(period)"
            XCTAssertEqual(try TOTP(parsing: uri).code(at: now), expected,
                           "case \(index): \(algorithm) \(digits) digits, \(period) s, t=\(time), secret \(base32)")
        }
    }

    func testBareSecretsAreSHA1SixDigitsThirtySecondsLikeOathtoolsDefaults() throws {
        let now = Date(timeIntervalSince1970: 1_234_567_890)
        for secret in ["JBSWY3DPEHPK3PXP", "KRSXG5CTMVRXEZLU", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"] {
            XCTAssertEqual(try TOTP(parsing: secret).code(at: now),
                           try Oathtool.totp(base32: secret, algorithm: "sha1", digits: 6, period: 30, at: now), secret)
        }
    }
}
