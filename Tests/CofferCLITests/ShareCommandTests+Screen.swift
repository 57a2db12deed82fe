import Foundation
import XCTest

/// The Members page of the real screen (tmux) on a shared vault three people keep on the real
/// Kinto, with `coffer` commands writing to the same file beside it.
extension ShareCommandTests {
    /// Ann's screen revokes Cat (`X`, then yes): the same revocation as `share revoke` — Cat's
    /// next sync is refused, Bob sees two members — while a command adds to Ann's copy meanwhile.
    func testTheMembersPageRevokesAMemberBesideCommands() throws {
        let (ann, bob, cat) = try household()
        let screen = try ScreenSession(vault: ann.sharedPath("home"), home: ann.vault.root)
        try screen.unlock(passphrase: ann.vault.passphrase)
        screen.expect("Coffer · home · shared")
        try screen.press("M")
        screen.expect("3 members")
        // Not oneself: the key says how to leave instead.
        try screen.press("X")
        screen.expect("That is you")
        try screen.press("End", "X")
        screen.expect("Revoke “Cat” (account \(cat.account.user))?")
        try screen.press("y")
        screen.expect("Revoked “Cat”", timeout: 60)
        screen.expect("2 members")
        XCTAssertFalse(screen.screen.contains("Cat "), screen.screen)

        // A command beside the screen writes to the same file: the screen shows it.
        assertOK(try ann.inShared("home", ["add", "--title", "Gate", "--password", "canary-gate"]))
        try screen.press("Escape")
        screen.expect("Gate")

        assertExit(try cat.inShared("home", ["sync"]), 13)
        assertOK(try bob.inShared("home", ["sync"]))
        XCTAssertEqual(try memberNames(bob, "home"), ["Ann", "Bob"])
        try screen.press("q")
        screen.expect("EXIT=0")
    }
}
