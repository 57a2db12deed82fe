import CofferCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A shared vault's recovery kit (issue 31, architecture §17 "Recovery kit") with three people on
/// the real Kinto: every device of Ann's lost, her personal kit and her shared vault's kit bring
/// both back and make her a member again; a revocation of someone else leaves her kit working, a
/// revoked person's kit opens nothing, and a rotated kit is refused. Each `recover` also dies
/// once after making its file (crash points), and the next `sync` finishes it.
extension ShareCommandTests {
    private func kitCode(_ kit: String) throws -> String {
        try XCTUnwrap(kit.range(of: #"[0-9A-Z]{5}(-[0-9A-Z]{5}){4}-[0-9A-Z]{2}"#, options: .regularExpression).map { String(kit[$0]) },
                      "no code in: \(kit)")
    }

    /// A new machine of `member`'s (their account; nothing on disk yet) with `passphrase`.
    private func newMachine(of member: Member, passphrase: String) throws -> Member {
        let machine = Member(name: member.name, vault: try TestVault(passphrase: passphrase), account: member.account)
        people.append(machine)
        return machine
    }

    func testASharedVaultsKitMakesItsMemberAgainOnANewMachine() throws {
        let (ann, bob, cat) = try household()
        let personalKit = ann.vault.work.appendingPathComponent("personal-kit.txt").path
        let sharedKit = ann.vault.work.appendingPathComponent("home-kit.txt").path
        let catsKit = cat.vault.work.appendingPathComponent("cats-kit.txt").path
        assertOK(try ann.vault.run(["recovery-kit", "--output", personalKit]))
        assertOK(try ann.inShared("home", ["recovery-kit", "--output", sharedKit]))
        assertOK(try cat.inShared("home", ["recovery-kit", "--output", catsKit]))
        let kitText = try String(contentsOfFile: sharedKit, encoding: .utf8)
        XCTAssertTrue(kitText.contains("shared vault “home”") && kitText.contains("coffer --vault home recover"), kitText)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: sharedKit)[.posixPermissions] as? Int, 0o600)
        XCTAssertNotEqual(try kitCode(kitText), try kitCode(try String(contentsOfFile: personalKit, encoding: .utf8)))

        // On the server the kit's own account holds ciphertext only: no key, name or account.
        let keys = try RecoveryKeys(code: RecoveryCode(parsing: try kitCode(kitText)))
        let (body, status) = try SyncCommandServer.send(URLRequest(url: server.appendingPathComponent("buckets/default/collections/recovery/records")),
                                                        account: (keys.accountName, keys.accountPassword))
        XCTAssertEqual(status, 200)
        let stored = String(decoding: body, as: UTF8.self)
        for canary in [ann.account.user, ann.account.password, "home", "Door"] {
            XCTAssertFalse(stored.contains(canary), "\(canary) on the server: \(stored)")
        }

        // Bob revokes Cat and writes under the new keys: Ann's kit follows the new epoch.
        assertOK(try bob.inShared("home", ["share", "revoke", "Cat"]))
        assertOK(try bob.inShared("home", ["add", "--title", "Garage", "--password", "canary-garage"]))
        assertOK(try bob.inShared("home", ["sync"]))

        // Every device of Ann's lost. The personal kit first, then the shared vault's.
        let second = try newMachine(of: ann, passphrase: "a new passphrase \(UUID().uuidString.prefix(6))")
        let early = try second.vault.run(["recover", "--kit-file", sharedKit])
        assertError(early, 2, mentions: ["bring", "back first"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: second.sharedPath("home")))
        assertOK(try second.vault.run(["recover", "--kit-file", personalKit] + TestVault.fastKDF))
        assertError(try second.inShared("home", ["recover", "--kit-file", sharedKit]), 2, mentions: ["Run it on your personal vault"])
        let recovered = try second.vault.run(["recover", "--kit-file", sharedKit])
        assertOK(recovered)
        XCTAssertTrue(recovered.err.contains("you are a member again"), recovered.summary)
        XCTAssertEqual(try second.titles(in: "home"), ["Door", "Cat's bike", "Garage"])
        let door = try second.inShared("home", ["show", "Garage", "--field", "password"])
        XCTAssertEqual(door.out.trimmingCharacters(in: .newlines), "canary-garage")
        XCTAssertEqual(try memberNames(second, "home").sorted(), ["Ann", "Bob"])

        // She writes as a member again, and Bob takes it.
        assertOK(try second.inShared("home", ["add", "--title", "Back again", "--password", "canary-back"]))
        assertOK(try second.inShared("home", ["sync"]))
        assertOK(try bob.inShared("home", ["sync"]))
        XCTAssertTrue(try bob.titles(in: "home").contains("Back again"))

        // Cat's kit was made while she was a member: revoked, it opens nothing and makes no file.
        try FileManager.default.removeItem(atPath: cat.sharedPath("home"))
        let refused = try cat.vault.run(["recover", "--kit-file", catsKit])
        assertError(refused, 13, mentions: ["refuses your account on “home”"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: cat.sharedPath("home")), "a revoked member's kit made a copy")

        // A new kit voids the one used; the old one is refused, the new one works (dying once
        // after each file is made: the next sync finishes what the recovery began).
        let newKit = second.vault.work.appendingPathComponent("home-kit-2.txt").path
        let rotated = try second.inShared("home", ["recovery-kit", "--rotate", "--output", newKit])
        assertOK(rotated)
        XCTAssertTrue(rotated.err.contains("the old kit opens nothing now"), rotated.summary)
        let third = try newMachine(of: ann, passphrase: "a third passphrase \(UUID().uuidString.prefix(6))")
        let crashed = try CofferProcess.run(["--vault", third.vault.path, "--passphrase-file", third.vault.passphraseFile,
                                             "recover", "--kit-file", personalKit] + TestVault.fastKDF,
                                            home: third.vault.root, environment: [CrashPoint.environmentVariable: "recover.after-file"])
        XCTAssertEqual(crashed.status, CrashPoint.exitCode, crashed.summary)
        assertOK(try third.vault.run(["sync"]))
        assertError(try third.vault.run(["recover", "--kit-file", sharedKit]), 13, mentions: ["voided"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: third.sharedPath("home")))
        let copyCrashed = try CofferProcess.run(["--vault", third.vault.path, "--passphrase-file", third.vault.passphraseFile,
                                                 "recover", "--kit-file", newKit],
                                                home: third.vault.root, environment: [CrashPoint.environmentVariable: "share.copy.after-file"])
        XCTAssertEqual(copyCrashed.status, CrashPoint.exitCode, copyCrashed.summary)
        assertOK(try third.inShared("home", ["sync"]))
        XCTAssertEqual(try third.titles(in: "home"), ["Door", "Cat's bike", "Garage", "Back again"])
    }
}
