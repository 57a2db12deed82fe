import Foundation
import XCTest

/// `device rm NAME --rotate` with the built binary and the real Kinto (issue 42, architecture §9):
/// the vault gets new keys under a new passphrase; another device says so and sends nothing until
/// it is unlocked with the new passphrase, which opens everything; the removed device is shut out.
extension SyncCommandTests {
    func testDeviceRmRotateGivesNewKeysThatTheOtherDeviceTakesAtAnUnlock() throws {
        let laptop = try makeVault()
        let account = try signUp(laptop)
        let phone = try join(laptop, account)
        let old = try join(laptop, account)
        for (vault, name) in [(laptop, "laptop"), (phone, "phone"), (old, "old")] {
            assertOK(try vault.run(["device", "rename", name]))
            assertOK(try vault.run(["sync", "--unlock"]))
        }
        let mail = try laptop.add("Mail", ["--password", "real-1"])
        assertOK(try laptop.run(["sync"]))
        assertOK(try phone.run(["sync", "--unlock"]))
        assertOK(try phone.run(["edit", mail, "--username", "made offline on the phone"]))

        let newPassphrase = "the new passphrase \(UUID().uuidString.prefix(6))"
        let newFile = try laptop.writeWorkFile("new-passphrase", newPassphrase + "\n")
        let removed = try laptop.run(["device", "rm", "old", "--rotate", "--new-passphrase-file", newFile, "--kdf-memory", "64",
                                      "--kdf-iterations", "3"])
        assertOK(removed)
        XCTAssertTrue(removed.err.contains("Passphrase and keys changed"), removed.summary)
        assertError(try laptop.run(["list"]), 3, mentions: ["passphrase"])
        let laptopNew = try CofferProcess.run(["--vault", laptop.path, "--passphrase-file", newFile, "show", mail, "--field", "password"],
                                              home: laptop.root)
        XCTAssertEqual(laptopNew.line, "real-1", laptopNew.summary)

        // The phone, with the old passphrase: told, and its edit waits.
        assertError(try phone.run(["sync", "--unlock"]), 12, mentions: ["new passphrase"])
        let phoneFile = try phone.writeWorkFile("new-passphrase", newPassphrase + "\n")
        let synced = try CofferProcess.run(["--vault", phone.path, "--passphrase-file", phoneFile, "sync", "--unlock"], home: phone.root)
        assertOK(synced)
        assertOK(try CofferProcess.run(["--vault", laptop.path, "--passphrase-file", newFile, "sync", "--unlock"], home: laptop.root))
        let onLaptop = try CofferProcess.run(["--vault", laptop.path, "--passphrase-file", newFile, "show", mail, "--field", "username"],
                                             home: laptop.root)
        XCTAssertEqual(onLaptop.line, "made offline on the phone", "the phone's edit made before the new keys is kept")
    }
}
