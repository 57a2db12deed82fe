import Foundation
import XCTest

/// The real Kinto the tests sync with (`COFFER_TEST_KINTO_URL`, …/v1, set by `make test`,
/// `make reliability` and `Resources/scripts/with-kinto.sh`), the one place every test target finds
/// it. Without it the test fails: a test that needs the server never passes by skipping.
public enum TestKinto {
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "COFFER_TEST_KINTO_URL is not set" }
    }

    public static func url(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let value = environment["COFFER_TEST_KINTO_URL"], !value.isEmpty, let url = URL(string: value) { return url }
        XCTFail("COFFER_TEST_KINTO_URL is not set: run the tests with `make test`, `make reliability` "
                + "or Resources/scripts/with-kinto.sh", file: file, line: line)
        throw Missing()
    }
}
