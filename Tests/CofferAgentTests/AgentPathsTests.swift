import XCTest
@testable import CofferAgent

/// Where a vault's agent listens: a name every build of Coffer computes alike, or a client of one
/// build would not find the agent another build started.
final class AgentPathsTests: XCTestCase {
    func testTheNameIsTheFirstEightBytesOfTheSHA256OfTheVaultsPath() {
        // python3 -c "import hashlib; print(hashlib.sha256(b'/nonexistent-dir/vault.db').hexdigest()[:16])"
        let paths = AgentPaths.forVault("/nonexistent-dir/vault.db", directory: "/run/user/1/coffer")
        XCTAssertEqual(paths.socket, "/run/user/1/coffer/00db36bc109b76fc.sock")
        XCTAssertEqual(paths.sshSocket, "/run/user/1/coffer/00db36bc109b76fc.ssh.sock")
        XCTAssertEqual(paths.startLock, "/run/user/1/coffer/00db36bc109b76fc.start")
        XCTAssertEqual(AgentPaths.forVault("/nonexistent-dir/./other/../vault.db", directory: "/d").socket,
                       "/d/00db36bc109b76fc.sock", "two spellings of one path, one agent")
    }
}
