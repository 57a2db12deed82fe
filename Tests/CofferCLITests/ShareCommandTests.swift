import CofferCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Shared vaults (issue 31, architecture §17) with the built binary and the real Kinto: people,
/// each with their own passphrase, account and personal vault, creating, inviting, joining and
/// syncing one vault; a server (or a member writing around the client) that rolls the roster back
/// or forges an entry is refused by every device.
final class ShareCommandTests: XCTestCase {
    var server: URL!
    var people: [Member] = []

    override func setUpWithError() throws {
        server = try SyncCommandServer.require()
    }

    override func tearDown() {
        for person in people { person.vault.destroy() }
        super.tearDown()
    }

    /// Someone with a personal vault and their own account on the server.
    struct Member {
        let name: String
        let vault: TestVault
        let account: (user: String, password: String)

        /// Their copy of the shared vault `name`: `NAME.db` beside the personal vault.
        func sharedPath(_ name: String) -> String { vault.directory.appendingPathComponent("\(name).db").path }

        /// `coffer --vault NAME.db --passphrase-file … ARGUMENTS`: the personal passphrase opens it.
        func inShared(_ name: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> CofferResult {
            try CofferProcess.run(["--vault", sharedPath(name), "--passphrase-file", vault.passphraseFile] + arguments,
                                  home: vault.root, file: file, line: line)
        }

        func titles(in name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
            let listed = try inShared(name, ["list", "--json"], file: file, line: line)
            assertOK(listed, file: file, line: line)
            let items = try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [[String: Any]] ?? []
            return Set(items.compactMap { $0["title"] as? String })
        }
    }

    func person(_ name: String) throws -> Member {
        let vault = try TestVault.make()
        let account = (user: "share-\(name.lowercased())-\(UUID().uuidString.lowercased().prefix(8))", password: "canary-account-\(UUID().uuidString)")
        let passwordFile = try vault.writeWorkFile("account-password", account.password + "\n")
        assertOK(try vault.run(["account", "signup", "--server", server.absoluteString, "--user", account.user,
                                "--password-file", passwordFile], unlock: false))
        let person = Member(name: name, vault: vault, account: account)
        people.append(person)
        return person
    }

    /// `inviter` invites `guest` to `shared`; both compare the number and say yes.
    func invite(_ guest: Member, to shared: String, by inviter: Member,
                guestEnvironment: [String: String] = [:]) throws -> (host: CofferResult, joined: CofferResult) {
        let host = try RunningCoffer(["--vault", inviter.sharedPath(shared), "--passphrase-file", inviter.vault.passphraseFile,
                                      "share", "invite"], home: inviter.vault.root)
        host.waitFor("Waiting for them")
        let code = try XCTUnwrap(host.err.range(of: #"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{3}"#, options: .regularExpression)
            .map { String(host.err[$0]) }, "no code in: \(host.err)")
        let joining = try RunningCoffer(["--vault", guest.vault.path, "--passphrase-file", guest.vault.passphraseFile,
                                         "share", "join", "--code", code, "--name", guest.name], home: guest.vault.root,
                                        environment: guestEnvironment)
        host.waitFor("wants to join")
        joining.waitFor("does the inviting screen show this number?")
        let asked = host.err.range(of: #"\d{4}-\d{2} · “"#, options: .regularExpression).map { String(host.err[$0].prefix(7)) }
        let shown = joining.err.range(of: #"\d{4}-\d{2} · does"#, options: .regularExpression).map { String(joining.err[$0].prefix(7)) }
        XCTAssertNotNil(asked, host.err)
        XCTAssertEqual(asked, shown, "both sides show the same number")
        XCTAssertTrue(host.err.contains("“\(guest.name)” (account \(guest.account.user)) wants to join “\(shared)”"), host.err)
        host.answer("y")
        joining.answer("y")
        return (host.finish(), joining.finish())
    }

    func bucketStatus(_ bucket: String, path: String = "", as account: (user: String, password: String)) throws -> Int {
        try bucketAnswer(bucket, path: path, as: account).status
    }

    func bucketAnswer(_ bucket: String, path: String = "", as account: (user: String, password: String)) throws -> (status: Int, body: String) {
        let url = server.appendingPathComponent("buckets/\(bucket)\(path)")
        let (body, status) = try SyncCommandServer.send(URLRequest(url: url), account: account)
        return (status, String(decoding: body, as: UTF8.self))
    }

    /// A value of the vault file's `meta` table (read with Python's sqlite3, beside any coffer process).
    static func meta(_ path: String, _ key: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute('select value from meta where key=?',(sys.argv[2],)).fetchone(); print(r[0] if r else '')", path, key]
        let pipe = Pipe()
        process.standardOutput = pipe
        try? process.run()
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    // MARK: Tests

    func testThreePeopleShareAVaultEachWithTheirOwnPassphraseAndAccount() throws {
        let ann = try person("Ann")
        let bob = try person("Bob")
        let cat = try person("Cat")
        _ = try ann.vault.add("Ann's private", ["--password", "canary-private-password"])
        let created = try ann.vault.run(["share", "create", "family", "--as", "Ann"])
        assertOK(created)
        XCTAssertTrue(created.err.contains("Created the shared vault “family”"), created.summary)
        assertOK(try ann.inShared("family", ["add", "--title", "Netflix", "--username", "ann@example.com", "--password", "canary-netflix-1"]))
        assertOK(try ann.inShared("family", ["sync"]))

        let (host, joined) = try invite(bob, to: "family", by: ann)
        assertOK(host)
        assertOK(joined)
        XCTAssertTrue(joined.err.contains("Joined the shared vault “family”"), joined.summary)
        XCTAssertEqual(try bob.titles(in: "family"), ["Netflix"], "the shared vault's items, and nothing of Ann's personal vault")
        XCTAssertFalse(try bob.vault.list().contains { $0["title"] as? String == "Netflix" }, "Bob's personal vault stays his own")

        // Bob edits and adds; Ann sees both after a sync, per-field as in a personal vault.
        assertOK(try bob.inShared("family", ["edit", "Netflix", "--password", "canary-netflix-2"]))
        assertOK(try bob.inShared("family", ["add", "--title", "Wifi", "--password", "canary-wifi"]))
        assertOK(try bob.inShared("family", ["sync"]))
        assertOK(try ann.inShared("family", ["sync"]))
        XCTAssertEqual(try ann.titles(in: "family"), ["Netflix", "Wifi"])
        let password = try ann.inShared("family", ["show", "Netflix", "--field", "password"])
        XCTAssertEqual(password.out.trimmingCharacters(in: .newlines), "canary-netflix-2")

        // Bob invites Cat: any member may.
        let (_, catJoined) = try invite(cat, to: "family", by: bob)
        assertOK(catJoined)
        XCTAssertEqual(try cat.titles(in: "family"), ["Netflix", "Wifi"])
        let members = try cat.inShared("family", ["share", "members", "--json"])
        assertOK(members)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(members.out.utf8)) as? [String: Any])
        let listed = try XCTUnwrap(object["members"] as? [[String: Any]])
        XCTAssertEqual(listed.compactMap { $0["name"] as? String }, ["Ann", "Bob", "Cat"])
        XCTAssertEqual(listed.compactMap { $0["account"] as? String }, [ann.account.user, bob.account.user, cat.account.user])
        XCTAssertEqual(listed.filter { $0["you"] as? Bool == true }.compactMap { $0["name"] as? String }, ["Cat"])
        let addedBy = Dictionary(uniqueKeysWithValues: listed.map { ($0["name"] as? String ?? "", $0["added_by"] as? String ?? "") })
        let ids = Dictionary(uniqueKeysWithValues: listed.map { ($0["name"] as? String ?? "", $0["id"] as? String ?? "") })
        XCTAssertEqual(addedBy["Cat"], ids["Bob"], "the roster says who invited whom")
        XCTAssertEqual(addedBy["Bob"], ids["Ann"])

        // Cat's edit reaches Ann and Bob.
        assertOK(try cat.inShared("family", ["add", "--title", "Alarm", "--password", "canary-alarm"]))
        assertOK(try cat.inShared("family", ["sync"]))
        for member in [ann, bob] {
            assertOK(try member.inShared("family", ["sync"]))
            XCTAssertEqual(try member.titles(in: "family"), ["Alarm", "Netflix", "Wifi"], member.name)
        }

        // Each person's own passphrase opens their copy; another's does not.
        let wrong = try CofferProcess.run(["--vault", bob.sharedPath("family"), "--passphrase-file", ann.vault.passphraseFile, "list"],
                                          home: bob.vault.root)
        assertExit(wrong, 3)

        // The server holds ciphertext only, and keeps strangers out of the bucket.
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("family"), "share_vault"))
        XCTAssertTrue(bucket.hasPrefix("share-"), bucket)
        let (body, status) = try SyncCommandServer.send(
            URLRequest(url: server.appendingPathComponent("buckets/\(bucket)/collections/items/records")), account: bob.account)
        XCTAssertEqual(status, 200)
        let onServer = String(decoding: body, as: UTF8.self)
        for canary in ["Netflix", "canary-netflix-2", "canary-wifi", "ann@example.com", ann.vault.passphrase, "canary-private-password"] {
            XCTAssertFalse(onServer.contains(canary), "\(canary) on the server")
        }
        let stranger = try person("Dan")
        XCTAssertEqual(try bucketStatus(bucket, path: "/collections/items/records", as: stranger.account), 403)
        XCTAssertEqual(try bucketStatus(bucket, path: "/collections/roster/records", as: stranger.account), 403)
    }

    /// What a server can do to the roster — serve it rolled back, or append an entry signed by
    /// someone the chain never added — every device refuses, says so, and changes nothing.
    /// A member's own credentials stand in for the server here: they can write the bucket too.
    func testARolledBackOrForgedRosterIsRefusedAndChangesNothing() throws {
        let ann = try person("Ann")
        let bob = try person("Bob")
        assertOK(try ann.vault.run(["share", "create", "home", "--as", "Ann"]))
        let (_, joined) = try invite(bob, to: "home", by: ann)
        assertOK(joined)
        assertOK(try ann.inShared("home", ["add", "--title", "Door", "--password", "canary-door"]))
        assertOK(try ann.inShared("home", ["sync"]))
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        let vaultID = try XCTUnwrap(SharedVaultID(bucket: bucket))
        let rosterURL = server.appendingPathComponent("buckets/\(bucket)/collections/roster/records")

        // A forged entry: "Eve" adds herself, signed by a key no entry ever added.
        let entries = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "roster_entries")).split(separator: "\n")
            .map { try RosterEntry(encoded: XCTUnwrap(Data(base64Encoded: String($0)))) }
        XCTAssertEqual(entries.count, 2)
        let eve = PersonKeys()
        let forged = try RosterEntry(vaultID: vaultID, sequence: 2, previous: entries[1].hash,
                                     change: .add(try eve.person(name: "Eve", account: "eve")),
                                     epoch: entries[1].epoch, epochCommitment: entries[1].epochCommitment, signedBy: eve)
        var put = URLRequest(url: rosterURL.appendingPathComponent(RosterRecord.id(position: 2)))
        put.httpMethod = "PUT"
        put.setValue("application/json", forHTTPHeaderField: "Content-Type")
        put.httpBody = try JSONSerialization.data(withJSONObject: ["data": ["entry": forged.encoded.base64EncodedString()]])
        XCTAssertEqual(try SyncCommandServer.send(put, account: bob.account).1, 201)
        for member in [ann, bob] {
            let refused = try member.inShared("home", ["sync"])
            assertExit(refused, 11)
            XCTAssertTrue(refused.err.contains("roster of “home” is refused"), refused.summary)
            XCTAssertTrue(refused.err.contains("Roster entry 2"), refused.summary)
            let members = try member.inShared("home", ["share", "members", "--json"])
            XCTAssertFalse(members.out.contains("Eve"), "a forged member is listed: \(members.out)")
        }
        var delete = URLRequest(url: rosterURL.appendingPathComponent(RosterRecord.id(position: 2)))
        delete.httpMethod = "DELETE"
        XCTAssertEqual(try SyncCommandServer.send(delete, account: bob.account).1, 200)
        assertOK(try ann.inShared("home", ["sync"]))

        // Rolled back: the entry that added Bob removed, as a server restored from an old backup would serve it.
        var rollback = URLRequest(url: rosterURL.appendingPathComponent(RosterRecord.id(position: 1)))
        rollback.httpMethod = "DELETE"
        XCTAssertEqual(try SyncCommandServer.send(rollback, account: bob.account).1, 200)
        let refused = try ann.inShared("home", ["sync"])
        assertExit(refused, 11)
        XCTAssertTrue(refused.err.contains("rolled back"), refused.summary)
        XCTAssertEqual(try ann.titles(in: "home"), ["Door"], "nothing of the vault was lost")
    }

    func testCreatingNeedsASyncAccountAndAValidName() throws {
        let loner = try TestVault.make()
        defer { loner.destroy() }
        assertError(try loner.run(["share", "create", "family"]), 2, mentions: ["account"])
        let ann = try person("Ann")
        assertError(try ann.vault.run(["share", "create", "../evil"]), 2, mentions: ["name"])
        assertExit(try ann.vault.run(["share", "create", "x", "--as", "Ann"]), 0)
        assertError(try ann.vault.run(["share", "create", "x", "--as", "Ann"]), 1, mentions: ["exists"])
        // `--vault NAME` finds it beside the personal vault ($COFFER_VAULT).
        let byName = try CofferProcess.run(["--vault", "x", "--passphrase-file", ann.vault.passphraseFile, "share", "members"],
                                           home: ann.vault.root, environment: ["COFFER_VAULT": ann.vault.path])
        assertOK(byName)
        XCTAssertTrue(byName.out.contains("★ Ann"), byName.summary)
    }

    /// A member's name is anyone's text: with a newline, a bidi mark and DEL in it, `share members
    /// --json` is still JSON (they are written `\n`, `\u200f`, `\u007f`) and gives the name back whole.
    func testAMemberNameWithControlsKeepsTheMembersJSONValid() throws {
        let eve = try person("Eve")
        let name = "Eve\n\u{200F}\u{7F}"
        assertOK(try eve.vault.run(["share", "create", "odd", "--as", name]))
        let members = try eve.inShared("odd", ["share", "members", "--json"])
        assertOK(members)
        XCTAssertFalse(members.out.contains("\u{7F}") || members.out.contains("\u{200F}"), "a raw control in: \(members.summary)")
        let object = try members.jsonObject()
        let listed = try XCTUnwrap(object["members"] as? [[String: Any]], members.summary)
        XCTAssertEqual(listed.compactMap { $0["name"] as? String }, [name])
        XCTAssertEqual(listed.first?["you"] as? Bool, true)
    }

    /// Ann, Bob and Cat share "home"; Cat wrote an item.
    func household() throws -> (ann: Member, bob: Member, cat: Member) {
        let ann = try person("Ann")
        let bob = try person("Bob")
        let cat = try person("Cat")
        assertOK(try ann.vault.run(["share", "create", "home", "--as", "Ann"]))
        assertOK(try ann.inShared("home", ["add", "--title", "Door", "--password", "canary-door-1"]))
        assertOK(try ann.inShared("home", ["sync"]))
        assertOK(try invite(bob, to: "home", by: ann).joined)
        assertOK(try invite(cat, to: "home", by: ann).joined)
        assertOK(try cat.inShared("home", ["add", "--title", "Cat's bike", "--password", "canary-bike"]))
        assertOK(try cat.inShared("home", ["sync"]))
        for member in [ann, bob] { assertOK(try member.inShared("home", ["sync"])) }
        return (ann, bob, cat)
    }

    func memberNames(_ member: Member, _ shared: String) throws -> [String] {
        let members = try member.inShared(shared, ["share", "members", "--json"])
        assertOK(members)
        let object = try JSONSerialization.jsonObject(with: Data(members.out.utf8)) as? [String: Any]
        return (object?["members"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// Bob's sync after Ann's revocation, with his edit of Door made before it: nothing was sealed
    /// again, so his edit, a member's and signed, goes up over Door as any edit does. Unlocked with
    /// the old epoch's key, his session takes the new epoch's key once the sync has fetched it and
    /// Ann's keystore, before reconcile: one `sync --unlock` takes the new keys. (Until issue 42,
    /// finding 4, the vault locked there and a second `sync --unlock` took them.)
    func syncAfterTheRevocation(_ bob: Member, file: StaticString = #filePath, line: UInt = #line) throws {
        assertOK(try bob.inShared("home", ["sync", "--unlock"], file: file, line: line), file: file, line: line)
        XCTAssertEqual(Self.meta(bob.sharedPath("home"), "share_epoch"), "2", "Bob took the new epoch's key", file: file, line: line)
    }

    func testARevokedMemberIsRefusedByTheServerWhileAnotherMembersEditsAreKept() throws {
        let (ann, bob, cat) = try household()
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        let catsRecords = try SyncCommandServer.send(URLRequest(url: server.appendingPathComponent("buckets/\(bucket)/collections/items/records")),
                                                     account: cat.account)
        XCTAssertEqual(catsRecords.1, 200)
        let ids = ((try JSONSerialization.jsonObject(with: catsRecords.0) as? [String: Any])?["data"] as? [[String: Any]] ?? [])
            .compactMap { $0["id"] as? String }
        XCTAssertEqual(ids.count, 2)

        // Bob edits while Ann revokes Cat; Bob syncs only afterwards.
        assertOK(try bob.inShared("home", ["edit", "Door", "--password", "canary-door-2"]))
        let revoked = try ann.inShared("home", ["share", "revoke", "Cat"])
        assertOK(revoked)
        XCTAssertTrue(revoked.err.contains("Revoked “Cat”"), revoked.summary)
        try assertTheItemsCarryNoWriteOf(cat, in: bucket, ids: ids, as: ann)
        try syncAfterTheRevocation(bob)
        assertOK(try ann.inShared("home", ["sync"]))
        let door = try ann.inShared("home", ["show", "Door", "--field", "password"])
        XCTAssertEqual(door.out.trimmingCharacters(in: .newlines), "canary-door-2", "Bob's edit made during the revocation is kept")
        XCTAssertEqual(try memberNames(bob, "home"), ["Ann", "Bob"])

        // Cat's next sync is refused, and so is every raw request of hers, even for what she wrote.
        let refused = try cat.inShared("home", ["sync"])
        assertExit(refused, 13)
        XCTAssertTrue(refused.err.contains("refuses your account on “home”") || refused.err.contains("no longer a member"), refused.summary)
        for path in ["/collections/items/records", "/collections/roster/records", "/collections/seals/records", "/groups/members"]
            + ids.map({ "/collections/items/records/\($0)" }) {
            XCTAssertEqual(try bucketStatus(bucket, path: path, as: cat.account), 403, path)
        }
        // What Cat had stays on her device.
        XCTAssertEqual(try cat.titles(in: "home"), ["Cat's bike", "Door"])

        // The vault goes on in its new epoch: Bob takes the new key at his next unlock, and
        // someone invited now joins with it.
        XCTAssertEqual(try bob.titles(in: "home"), ["Cat's bike", "Door"])
        XCTAssertEqual(Self.meta(bob.sharedPath("home"), "share_epoch"), "2")
        XCTAssertEqual(Self.meta(ann.sharedPath("home"), "share_epoch"), "2")
        let dan = try person("Dan")
        assertOK(try invite(dan, to: "home", by: ann).joined)
        XCTAssertEqual(try dan.titles(in: "home"), ["Cat's bike", "Door"])
        XCTAssertEqual(try memberNames(dan, "home"), ["Ann", "Bob", "Dan"])

        // Bob leaves: Ann is the only member, Bob's copy stays and no longer syncs.
        let (bobsKeys, _) = try keys(of: bob)
        let left = try bob.inShared("home", ["share", "leave"])
        assertOK(left)
        XCTAssertTrue(left.err.contains("You left “home”"), left.summary)
        assertOK(try ann.inShared("home", ["sync"]))
        XCTAssertEqual(try memberNames(ann, "home"), ["Ann", "Dan"])
        let bobs = try bucketAnswer(bucket, path: "/collections/items/records", as: bob.account)
        let group = try bucketAnswer(bucket, path: "/groups/members", as: ann.account).body
        let whole = try bucketAnswer(bucket, as: ann.account).body
        let items = try bucketAnswer(bucket, path: "/collections/items", as: ann.account).body
        XCTAssertEqual(bobs.status, 403, "group: \(group) bucket: \(whole) collection: \(items)")
        XCTAssertEqual(try bob.titles(in: "home"), ["Cat's bike", "Door"])
        // Ann's next unlock takes the key of the epoch Bob's leaving began.
        assertOK(try ann.inShared("home", ["add", "--title", "After", "--password", "canary-after"]))
        assertOK(try ann.inShared("home", ["sync"]))
        XCTAssertEqual(Self.meta(ann.sharedPath("home"), "share_epoch"), "3")
        assertOK(try dan.inShared("home", ["sync"]))
        XCTAssertEqual(try dan.titles(in: "home"), ["After", "Cat's bike", "Door"])
        XCTAssertEqual(Self.meta(dan.sharedPath("home"), "share_epoch"), "3")
        assertError(try ann.inShared("home", ["share", "revoke", "Ann"]), 2, mentions: ["share leave"])
        assertError(try ann.inShared("home", ["share", "revoke", "Nobody"]), 2, mentions: ["No member"])
        // Bob began the epoch of his leaving, so he knows its key: `share rotate` replaces the keys
        // for what is written from then on (what he read stays sealed as he read it).
        XCTAssertTrue(try serverItems(bucket, as: ann).contains { (try? ItemSealing.open($0, ring: bobsKeys.ring)) != nil },
                      "what Bob read is sealed as he read it")
        // A rotation that dies after its entry (epoch 4's key reached nobody) is replaced by the next.
        let dead = try CofferProcess.run(["--vault", ann.sharedPath("home"), "--passphrase-file", ann.vault.passphraseFile,
                                          "share", "rotate"], home: ann.vault.root,
                                         environment: [CrashPoint.environmentVariable: "share.rotate.after-entry"])
        XCTAssertEqual(dead.status, CrashPoint.exitCode, dead.summary)
        let rotated = try ann.inShared("home", ["share", "rotate"])
        assertOK(rotated)
        XCTAssertTrue(rotated.err.contains("Epoch 5 begins: the vault's keys are replaced"), rotated.summary)
        assertOK(try ann.inShared("home", ["add", "--title", "Rotated", "--password", "canary-rotated"]))
        assertOK(try ann.inShared("home", ["edit", "Door", "--password", "canary-door-3"]))
        assertOK(try ann.inShared("home", ["sync"]))
        let (annsKeys, _) = try keys(of: ann)
        let titled = try serverItems(bucket, as: ann).compactMap { record in
            (try? ItemSealing.open(record, ring: annsKeys.ring)).map { ($0.title, record) }
        }
        let written = titled.filter { ["Rotated", "Door"].contains($0.0) }
        XCTAssertEqual(written.count, 2, "the new item and the edit: \(titled.map(\.0))")
        for (title, record) in written {
            XCTAssertThrowsError(try ItemSealing.open(record, ring: bobsKeys.ring), "\(title), written after the rotation, opened with Bob's keys")
        }
        assertOK(try dan.inShared("home", ["sync"]))
        XCTAssertEqual(try dan.titles(in: "home"), ["After", "Cat's bike", "Door", "Rotated"])
        XCTAssertEqual(Self.meta(dan.sharedPath("home"), "share_epoch"), "5")
    }

    /// Right after `share revoke`, before any other member syncs (whose roster step would rewrite
    /// every record if the revoker had not): the items, rewritten only by the push of their new
    /// keys, no longer list the removed person's account, who is refused each of them, and the
    /// removal is marked rewritten on the server.
    private func assertTheItemsCarryNoWriteOf(_ removed: Member, in bucket: String, ids: [String], as member: Member,
                                              file: StaticString = #filePath, line: UInt = #line) throws {
        for id in ids {
            let answer = try bucketAnswer(bucket, path: "/collections/items/records/\(id)", as: member.account)
            XCTAssertEqual(answer.status, 200, answer.body, file: file, line: line)
            let permissions = (try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["permissions"] as? [String: [String]]
            XCTAssertEqual(permissions?["write"], ["account:\(member.account.user)"], "item \(id): \(answer.body)", file: file, line: line)
            XCTAssertEqual(try bucketStatus(bucket, path: "/collections/items/records/\(id)", as: removed.account), 403, id, file: file, line: line)
        }
        let seals = try bucketAnswer(bucket, path: "/collections/seals/records", as: member.account).body
        XCTAssertTrue(seals.contains("\"rewritten-"), "the removal is marked rewritten: \(seals)", file: file, line: line)
    }

    /// The keys `member`'s copy of "home" holds now (the test keeps them), and its epoch key.
    func keys(of member: Member) throws -> (OpenedKeystore, SecureBuffer) {
        let copy = try Vault.open(at: member.sharedPath("home"))
        let secrets = try XCTUnwrap(try copy.memberSecrets(passphrase: SecureBuffer(copying: Data(member.vault.passphrase.utf8))))
        let keystore = try XCTUnwrap(try copy.database.read { try VaultDatabase.currentKeystore(in: $0) })
        return (try KeystoreSealing.open(keystore, passphrase: secrets.epochKey), secrets.epochKey)
    }

    /// The item records on the server, read with `member`'s account.
    func serverItems(_ bucket: String, as member: Member) throws -> [ItemRecord] {
        let answer = try bucketAnswer(bucket, path: "/collections/items/records", as: member.account)
        XCTAssertEqual(answer.status, 200)
        let data = (try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["data"] as? [[String: Any]] ?? []
        return try data.map { try RecordCoding.decode(ItemRecord.self, from: String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self)) }
    }

    /// The keystore record on the server, read with `member`'s account.
    func serverKeystore(_ bucket: String, as member: Member) throws -> KeystoreRecord {
        let keystore = try bucketAnswer(bucket, path: "/collections/keystores/records/default", as: member.account)
        return try RecordCoding.decode(KeystoreRecord.self, from: String(decoding: try JSONSerialization.data(
            withJSONObject: (try JSONSerialization.jsonObject(with: Data(keystore.body.utf8)) as? [String: Any])?["data"] ?? [:]), as: UTF8.self))
    }

    /// What is written after a revocation does not open with the keys the removed person held
    /// (the test keeps them): the vault key, hashing key and item keys are new, every item sealed
    /// again, and the members who stay converge without a review (⚑) of the re-sealed items.
    func testWhatIsWrittenAfterARevocationDoesNotOpenWithTheRemovedPersonsKeys() async throws {
        let (ann, bob, cat) = try household()
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        let (catsKeys, catsEpochKey) = try keys(of: cat)
        func serverItems() throws -> [ItemRecord] { try self.serverItems(bucket, as: ann) }
        let before = try serverItems()
        XCTAssertEqual(before.count, 2)
        for record in before { XCTAssertNoThrow(try ItemSealing.open(record, ring: catsKeys.ring), "Cat's keys open what she was given") }

        assertOK(try bob.inShared("home", ["edit", "Door", "--password", "canary-door-2"]))
        assertOK(try ann.inShared("home", ["share", "revoke", "Cat"]))
        try syncAfterTheRevocation(bob)
        assertOK(try ann.inShared("home", ["add", "--title", "After", "--password", "canary-after"]))
        for member in [ann, bob, ann] { assertOK(try member.inShared("home", ["sync"])) }

        let after = try serverItems()
        XCTAssertEqual(after.count, 3)
        // Nothing is sealed again (a revocation is O(members)): what Cat read stays as she read
        // it, and what is written after the new keys does not open with hers.
        let (annsKeys, _) = try keys(of: ann)
        let written = try XCTUnwrap(after.first { (try? ItemSealing.open($0, ring: annsKeys.ring))?.title == "After" })
        XCTAssertThrowsError(try ItemSealing.open(written, ring: catsKeys.ring), "the item written after the revocation opened with Cat's old keys")
        XCTAssertTrue(Set(written.originHashes + written.tagHashes).isDisjoint(with: before.flatMap { $0.originHashes + $0.tagHashes }))
        XCTAssertEqual(after.filter { (try? ItemSealing.open($0, ring: catsKeys.ring)) != nil }.count, 2,
                       "Door (Bob's edit made before he took the new keys) and Cat's bike stay as they were sealed")
        let record = try serverKeystore(bucket, as: ann)
        XCTAssertThrowsError(try KeystoreSealing.open(record, passphrase: catsEpochKey), "the keystore opens with Cat's epoch key")
        XCTAssertThrowsError(try KeystoreSealing.openRing(record, vaultKey: catsKeys.vaultKey), "the key ring opens with Cat's vault key")

        // The members who stay read everything, Bob's edit made during the revocation included,
        // and what was only sealed again waits for no review.
        for member in [ann, bob] {
            XCTAssertEqual(try member.titles(in: "home"), ["After", "Cat's bike", "Door"])
            let door = try member.inShared("home", ["show", "Door", "--field", "password"])
            XCTAssertEqual(door.out.trimmingCharacters(in: .newlines), "canary-door-2", member.name)
            // Only Door, edited by Bob, may have been merged: the others were only sealed again.
            let listed = try JSONSerialization.jsonObject(with: Data(try member.inShared("home", ["list", "--json"]).out.utf8)) as? [[String: Any]] ?? []
            let merged = listed.filter { ($0["badges"] as? [String] ?? []).contains("merged") }.compactMap { $0["title"] as? String }
            XCTAssertTrue(Set(merged).isSubset(of: ["Door"]), "\(member.name): \(merged)")
        }
        XCTAssertNil(Self.meta(ann.sharedPath("home"), "share_rekey"), "the epoch Ann began has its new keys")
    }

    /// Bob and Cat revoke each other at the same moment: both removals hold, Ann still syncs.
    func testTwoMembersRevokingEachOtherAtOnceAreBothRemoved() throws {
        let (ann, bob, cat) = try household()
        let results = try CofferProcess.runConcurrently([
            CofferProcess.Invocation(arguments: ["--vault", bob.sharedPath("home"), "--passphrase-file", bob.vault.passphraseFile,
                                                 "share", "revoke", "Cat"], stdin: nil, home: bob.vault.root),
            CofferProcess.Invocation(arguments: ["--vault", cat.sharedPath("home"), "--passphrase-file", cat.vault.passphraseFile,
                                                 "share", "revoke", "Bob"], stdin: nil, home: cat.vault.root),
        ])
        XCTAssertTrue(results.contains { $0.status == 0 }, results.map(\.summary).joined(separator: "\n"))
        assertOK(try ann.inShared("home", ["sync"]))
        let remaining = try memberNames(ann, "home")
        XCTAssertEqual(remaining, ["Ann"], "both removals hold: \(results.map(\.summary))")
        let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
        for member in [bob, cat] {
            let answer = try bucketAnswer(bucket, path: "/collections/items/records", as: member.account)
            XCTAssertEqual(answer.status, 403, "\(member.name): \(answer.body)")
        }
        XCTAssertEqual(try ann.titles(in: "home"), ["Cat's bike", "Door"])
    }

    /// A revocation that dies half-way — after its roster entry (no key sealed for the new epoch),
    /// after the seals (the account still in the group), or in its new keys' transaction — is
    /// finished by the members who stay: the person is refused once another member synced, the
    /// vault gets new keys all the same, and it goes on.
    func testARevocationThatDiesHalfWayIsFinishedByTheMembersWhoStay() throws {
        for point in ["share.revoke.after-entry", "share.revoke.after-seals", "share.rekey.inside-write"] {
            let (ann, bob, cat) = try household()
            let (catsKeys, _) = try keys(of: cat)
            let crashed = try CofferProcess.run(["--vault", ann.sharedPath("home"), "--passphrase-file", ann.vault.passphraseFile,
                                                 "share", "revoke", "Cat"], home: ann.vault.root, environment: [CrashPoint.environmentVariable: point])
            XCTAssertEqual(crashed.status, CrashPoint.exitCode, "\(point): \(crashed.summary)")
            assertOK(try bob.inShared("home", ["sync"]))
            assertExit(try cat.inShared("home", ["sync"]), 13)
            let bucket = try XCTUnwrap(Self.meta(ann.sharedPath("home"), "share_vault"))
            XCTAssertEqual(try bucketStatus(bucket, path: "/collections/items/records", as: cat.account), 403, point)
            let dan = try person("Dan")
            let (_, joined) = try invite(dan, to: "home", by: bob)
            assertOK(joined)
            XCTAssertEqual(try dan.titles(in: "home"), ["Cat's bike", "Door"], point)
            // Unlocked: a revoker that died in its new keys' transaction had wrapped the keystore
            // under the new epoch's key, as Bob did since: the two changes merge at an unlock.
            assertOK(try ann.inShared("home", ["sync", "--unlock"]))
            XCTAssertEqual(try ann.titles(in: "home"), ["Cat's bike", "Door"], point)
            XCTAssertEqual(try memberNames(ann, "home"), ["Ann", "Bob", "Dan"], point)
            // The vault has new keys all the same: a dead revoker's device makes them at its next
            // unlock, or the member whose rotation replaced the key that reached nobody does.
            for member in [ann, bob, dan, ann] { assertOK(try member.inShared("home", ["sync", "--unlock"])) }
            assertOK(try dan.inShared("home", ["add", "--title", "Later", "--password", "canary-later"]))
            assertOK(try dan.inShared("home", ["sync"]))
            let (dansKeys, _) = try keys(of: dan)
            let later = try XCTUnwrap(try serverItems(bucket, as: ann).first { (try? ItemSealing.open($0, ring: dansKeys.ring))?.title == "Later" }, point)
            XCTAssertThrowsError(try ItemSealing.open(later, ring: catsKeys.ring), "\(point): an item written with the new keys opened with Cat's old keys")
            assertOK(try ann.inShared("home", ["sync"]))
            XCTAssertEqual(try ann.titles(in: "home"), ["Cat's bike", "Door", "Later"], point)
        }
    }

    /// A revocation that failed after its roster entry (its answer lost, or, as here, the process
    /// dead), run again by the same member, finishes: the person is named as this device knew
    /// them, a new epoch begins (the key of the removal's reached nobody) and is sealed to those
    /// who stay, the account leaves the group and the records are rewritten.
    func testARevocationRunAgainAfterItsEntryFinishesIt() throws {
        let (ann, bob, cat) = try household()
        let crashed = try CofferProcess.run(["--vault", ann.sharedPath("home"), "--passphrase-file", ann.vault.passphraseFile,
                                             "share", "revoke", "Cat"], home: ann.vault.root,
                                            environment: [CrashPoint.environmentVariable: "share.revoke.after-entry"])
        XCTAssertEqual(crashed.status, CrashPoint.exitCode, crashed.summary)
        let again = try ann.inShared("home", ["share", "revoke", "Cat"])
        assertOK(again)
        XCTAssertTrue(again.err.contains("Revoked \u{201C}Cat\u{201D}"), again.summary)
        XCTAssertEqual(Self.meta(ann.sharedPath("home"), "share_epoch"), "3", "the rotation's key reached Ann")
        assertExit(try cat.inShared("home", ["sync"]), 13)
        assertOK(try bob.inShared("home", ["sync"]))
        XCTAssertEqual(try bob.titles(in: "home"), ["Cat's bike", "Door"])
        XCTAssertEqual(Self.meta(bob.sharedPath("home"), "share_epoch"), "3", "the rotation's key reached Bob")
        XCTAssertEqual(try memberNames(ann, "home"), ["Ann", "Bob"])
    }

    /// An inviter that dies once the roster lists the new person (before their key and the
    /// group): the person's join ends without a vault, and a new invitation works.
    func testAnInviterOrAJoinerThatDiesLeavesNothingHalfMade() throws {
        let ann = try person("Ann")
        let bob = try person("Bob")
        assertOK(try ann.vault.run(["share", "create", "home", "--as", "Ann"]))
        let host = try RunningCoffer(["--vault", ann.sharedPath("home"), "--passphrase-file", ann.vault.passphraseFile,
                                      "share", "invite", "--valid-seconds", "15"], home: ann.vault.root,
                                     environment: [CrashPoint.environmentVariable: "share.invite.after-add"])
        host.waitFor("Waiting for them")
        let code = try XCTUnwrap(host.err.range(of: #"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{3}"#, options: .regularExpression)
            .map { String(host.err[$0]) })
        let joining = try RunningCoffer(["--vault", bob.vault.path, "--passphrase-file", bob.vault.passphraseFile,
                                         "share", "join", "--code", code, "--name", "Bob"], home: bob.vault.root)
        host.waitFor("wants to join")
        joining.waitFor("does the inviting screen show this number?")
        host.answer("y")
        joining.answer("y")
        XCTAssertEqual(host.finish().status, CrashPoint.exitCode)
        let joined = joining.finish(timeout: 90)
        assertExit(joined, 14)
        XCTAssertFalse(FileManager.default.fileExists(atPath: bob.sharedPath("home")), "a half-joined vault file")
        assertOK(try ann.inShared("home", ["sync"]))
        XCTAssertEqual(try memberNames(ann, "home"), ["Ann", "Bob"], "the roster lists the person the inviter added")
        assertOK(try invite(bob, to: "home", by: ann).joined)
        XCTAssertEqual(try memberNames(bob, "home"), ["Ann", "Bob", "Bob"], "a new invitation adds the person's new keys")

        // The joining side dying once its copy is made: the copy is whole, its next sync fetches
        // the items, and the person's other devices find it recorded.
        assertOK(try ann.inShared("home", ["add", "--title", "Door", "--password", "canary-door"]))
        assertOK(try ann.inShared("home", ["sync"]))
        let cat = try person("Cat")
        let (inviting, catJoined) = try invite(cat, to: "home", by: ann,
                                                guestEnvironment: [CrashPoint.environmentVariable: "share.copy.after-file"])
        assertOK(inviting)
        XCTAssertEqual(catJoined.status, CrashPoint.exitCode, catJoined.summary)
        assertOK(try cat.inShared("home", ["sync"]))
        XCTAssertEqual(try cat.titles(in: "home"), ["Door"])
        let listed = try cat.vault.run(["share", "list"])
        assertOK(listed)
        XCTAssertTrue(listed.out.contains("home"), listed.summary)
    }

    /// Bob has a shared vault of his own named "home" when Ann invites him to hers: his copy of
    /// Ann's is "home-2" (said when he joins), and each keeps its own items.
    func testJoiningAVaultNamedLikeOneHereGivesTheCopyAnotherName() throws {
        let ann = try person("Ann")
        let bob = try person("Bob")
        assertOK(try ann.vault.run(["share", "create", "home", "--as", "Ann"]))
        assertOK(try ann.inShared("home", ["add", "--title", "Ann's door", "--password", "canary-ann"]))
        assertOK(try ann.inShared("home", ["sync"]))
        assertOK(try bob.vault.run(["share", "create", "home", "--as", "Bob"]))
        assertOK(try bob.inShared("home", ["add", "--title", "Bob's door", "--password", "canary-bob"]))
        let joined = try invite(bob, to: "home", by: ann).joined
        assertOK(joined)
        XCTAssertTrue(joined.err.contains("(another vault here is named “home”)") && joined.err.contains("`--vault home-2` opens it"),
                      joined.summary)
        XCTAssertEqual(try bob.titles(in: "home-2"), ["Ann's door"])
        XCTAssertEqual(try bob.titles(in: "home"), ["Bob's door"])
        let listed = try bob.vault.run(["share", "list"])
        assertOK(listed)
        XCTAssertTrue(listed.out.contains("home-2"), listed.summary)
    }

    /// A shared vault opens with the personal passphrase and syncs with the personal account: a
    /// new passphrase (`passwd` on the personal vault) and a new account password (rotated from
    /// the personal vault) carry over; `passwd` on the shared vault itself is refused.
    func testThePersonalPassphraseAndAccountPasswordCarryOver() throws {
        let ann = try person("Ann")
        assertOK(try ann.vault.run(["share", "create", "home", "--as", "Ann"]))
        assertOK(try ann.inShared("home", ["add", "--title", "Door", "--password", "canary-door"]))
        assertError(try ann.inShared("home", ["passwd"]), 2, mentions: ["personal vault"])

        let newPassphrase = "a new passphrase \(UUID().uuidString.prefix(6))"
        let newFile = try ann.vault.writeWorkFile("new-passphrase", newPassphrase + "\n")
        chmod(newFile, 0o600)
        let changed = try ann.vault.run(["passwd", "--new-passphrase-file", newFile])
        assertOK(changed)
        XCTAssertTrue(changed.err.contains("“home” opens with the new passphrase too"), changed.summary)
        let withNew = try CofferProcess.run(["--vault", ann.sharedPath("home"), "--passphrase-file", newFile, "list"], home: ann.vault.root)
        assertOK(withNew)
        XCTAssertTrue(withNew.out.contains("Door"), withNew.summary)
        assertExit(try ann.inShared("home", ["list"]), 3)

        // The account's password changes on the server and in the personal vault (as a rotation
        // from another device leaves it): the shared vault's next sync takes it from there.
        let password = "rotated-\(UUID().uuidString)"
        try SyncCommandServer.changePassword(server: server, account: ann.account, to: password)
        let passwordFile = try ann.vault.writeWorkFile("rotated", password + "\n")
        assertOK(try CofferProcess.run(["--vault", ann.vault.path, "--passphrase-file", newFile, "account", "login", "--server",
                                        server.absoluteString, "--user", ann.account.user, "--password-file", passwordFile],
                                       home: ann.vault.root))
        let synced = try CofferProcess.run(["--vault", ann.sharedPath("home"), "--passphrase-file", newFile, "sync"], home: ann.vault.root)
        assertOK(synced)
        XCTAssertEqual(Self.meta(ann.sharedPath("home"), "account_password"), password)
    }

    /// A person's second device makes its own copy of a shared vault (`share join NAME`) from what
    /// the first recorded in their personal account — after a revocation began a newer epoch too.
    func testAPersonsSecondDeviceMakesItsOwnCopy() throws {
        let ann = try person("Ann")
        let bob = try person("Bob")
        assertOK(try ann.vault.run(["share", "create", "home", "--as", "Ann"]))
        assertOK(try ann.inShared("home", ["add", "--title", "Door", "--password", "canary-door"]))
        assertOK(try ann.inShared("home", ["sync"]))
        assertOK(try invite(bob, to: "home", by: ann).joined)
        assertOK(try ann.inShared("home", ["share", "revoke", "Bob"]))

        // Ann's laptop: a second device of her personal vault, same passphrase and account.
        let laptop = try TestVault(passphrase: ann.vault.passphrase)
        let passwordFile = try laptop.writeWorkFile("account-password", ann.account.password + "\n")
        assertOK(try laptop.run(["join", "--server", server.absoluteString, "--user", ann.account.user, "--password-file", passwordFile]))
        let second = Member(name: "Ann", vault: laptop, account: ann.account)
        people.append(second)
        let listed = try laptop.run(["share", "list"])
        assertOK(listed)
        XCTAssertTrue(listed.out.contains("home  not on this device"), listed.summary)
        let copied = try laptop.run(["share", "join", "home"])
        assertOK(copied)
        XCTAssertTrue(copied.err.contains("This device has its copy of “home”"), copied.summary)
        XCTAssertEqual(try second.titles(in: "home"), ["Door"])
        XCTAssertEqual(Self.meta(second.sharedPath("home"), "share_epoch"), "2", "the copy opens with the epoch the revocation began")

        // Edits go both ways between Ann's two copies.
        assertOK(try second.inShared("home", ["add", "--title", "Laptop's", "--password", "canary-laptop"]))
        assertOK(try second.inShared("home", ["sync"]))
        assertOK(try ann.inShared("home", ["sync"]))
        XCTAssertEqual(try ann.titles(in: "home"), ["Door", "Laptop's"])
        XCTAssertEqual(try memberNames(second, "home"), ["Ann"])
        assertError(try laptop.run(["share", "join", "home"]), 1, mentions: ["exists"])
        assertError(try laptop.run(["share", "join", "nowhere"]), 2, mentions: ["share list"])
        // Someone else's account has no record of it.
        let cat = try person("Cat")
        assertError(try cat.vault.run(["share", "join", "home"]), 2, mentions: ["share list"])
    }
}
