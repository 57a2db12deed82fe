import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The Airmail journal's pairing with two real processes of the built binary on the real Kinto: `device
/// invite` on one vault, `join --code` on a new device, the allow prompt between them; `send` and
/// `receive` for one item. Nothing of an invitation may stay on the server.
final class PairingTests: XCTestCase {
    private var server: URL!
    private var vaults: [TestVault] = []

    override func setUpWithError() throws {
        server = try SyncCommandServer.require()
    }

    override func tearDown() {
        for vault in vaults { vault.destroy() }
        super.tearDown()
    }

    // MARK: Helpers

    /// What `join --code` asks once it has the number, which comes first on the line.
    private static let joinQuestion = "does the other device show this number? [y/N]"
    /// What `receive` asks once it has the number.
    private static let receiveQuestion = "does the sender's screen show this number? [y/N]"

    /// A vault with an item and a sync account, synced.
    private func inviter() throws -> (vault: TestVault, account: (user: String, password: String)) {
        let vault = try TestVault.make()
        vaults.append(vault)
        _ = try vault.add("GitHub", ["--username", "ann", "--password", "canary-item-password"])
        let account = (user: "pair-\(UUID().uuidString.lowercased())", password: "canary-account-\(UUID().uuidString)")
        let passwordFile = try vault.writeWorkFile("account-password", account.password + "\n")
        assertOK(try vault.run(["account", "signup", "--server", server.absoluteString, "--user", account.user,
                                "--password-file", passwordFile], unlock: false))
        return (vault, account)
    }

    private func newDevice(passphrase: String) throws -> TestVault {
        let device = try TestVault(passphrase: passphrase)
        vaults.append(device)
        return device
    }

    private func invite(_ vault: TestVault, _ extra: [String] = []) throws -> (process: RunningCoffer, code: String) {
        let process = try RunningCoffer(["--vault", vault.path, "device", "invite"] + extra, home: vault.root)
        process.waitFor("Waiting for it")
        let code = try XCTUnwrap(process.err.range(of: #"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{3}"#, options: .regularExpression)
            .map { String(process.err[$0]) }, "no code in: \(process.err)")
        return (process, code)
    }

    private func join(_ device: TestVault, code: String, name: String = "laptop") throws -> RunningCoffer {
        try RunningCoffer(["--vault", device.path, "--passphrase-file", device.passphraseFile, "join",
                           "--server", server.absoluteString, "--code", code, "--name", name], home: device.root)
    }

    /// The rendezvous account the code names is gone: its credentials are refused.
    private func assertRendezvousGone(_ code: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try rendezvousStatus(code), 401, "the rendezvous account is still on the server", file: file, line: line)
    }

    /// The HTTP status of listing the rendezvous with the code's credentials.
    private func rendezvousStatus(_ code: String) throws -> Int {
        let keys = try RendezvousKeys(code: InvitationCode(parsing: code))
        return try RendezvousProbe.status(server: server, user: keys.accountName, password: keys.accountPassword)
    }

    /// Exit 14 with `words` in the last line of stderr (the lines before it are the exchange's).
    private func assertInviteError(_ result: CofferResult, mentions words: [String],
                                   file: StaticString = #filePath, line: UInt = #line) {
        assertExit(result, 14, file: file, line: line)
        let last = result.err.split(separator: "\n").last.map(String.init) ?? ""
        for word in words {
            XCTAssertTrue(last.contains(word), "the last line does not mention \(word): \(result.summary)", file: file, line: line)
        }
    }

    private func confirmation(in text: String) -> String? {
        text.range(of: #"[0-9]{4}-[0-9]{2}"#, options: .regularExpression).map { String(text[$0]) }
    }

    /// The number the inviter's question shows (it comes first on the line that asks).
    private func askedNumber(in text: String) -> String? {
        text.range(of: #"[0-9]{4}-[0-9]{2} · “"#, options: .regularExpression).flatMap { confirmation(in: String(text[$0])) }
    }

    /// Whether stderr holds an ESC byte: something a name or title could make the terminal obey.
    private func hasEscape(_ result: CofferResult) -> Bool {
        result.stderr.contains(0x1B)
    }

    private func send(_ vault: TestVault, _ item: String = "github") throws -> (process: RunningCoffer, code: String) {
        let sender = try RunningCoffer(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "send", item], home: vault.root)
        sender.waitFor("Waiting for them")
        let code = try XCTUnwrap(sender.err.range(of: #"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{3}"#, options: .regularExpression)
            .map { String(sender.err[$0]) })
        return (sender, code)
    }

    private func receive(_ vault: TestVault, code: String, name: String = "bob") throws -> RunningCoffer {
        try RunningCoffer(["--vault", vault.path, "--passphrase-file", vault.passphraseFile, "receive",
                           "--server", server.absoluteString, code, "--name", name], home: vault.root)
    }

    /// The ids of the rendezvous records now on the server, read with the code's credentials (with
    /// curl: none once the account is gone).
    private func rendezvousRecords(_ code: String) throws -> [String] {
        let keys = try RendezvousKeys(code: InvitationCode(parsing: code))
        return try RendezvousProbe.recordIDs(server: server, user: keys.accountName, password: keys.accountPassword)
    }

    // MARK: Device invitations

    func testAnInvitedDeviceJoinsWithTheSameNumberOnBothSidesAndNothingStaysOnTheServer() throws {
        let (a, account) = try inviter()
        let (host, code) = try invite(a)
        let device = try newDevice(passphrase: a.passphrase)
        let guest = try join(device, code: code)
        host.waitFor("wants to join")
        guest.waitFor(Self.joinQuestion)

        // Mid-way, the server holds the rendezvous: ciphertext only (canaries).
        let keys = try RendezvousKeys(code: InvitationCode(parsing: code))
        let (body, status) = try SyncCommandServer.send(URLRequest(url: server.appendingPathComponent("buckets/default/collections/rendezvous/records")),
                                                        account: (keys.accountName, keys.accountPassword))
        XCTAssertEqual(status, 200)
        let onServer = String(decoding: body, as: UTF8.self)
        for record in ["invite", "claim", "key", "reveal"] {
            XCTAssertTrue(onServer.contains("\"\(record)\""), "no \(record) record: \(onServer)")
        }
        for canary in [code, code.replacingOccurrences(of: "-", with: ""), account.password, a.passphrase, "laptop"] {
            XCTAssertFalse(onServer.contains(canary), "\(canary) on the server")
            XCTAssertFalse(onServer.contains(Data(canary.utf8).base64EncodedString().dropLast(2)), "\(canary) in base64 on the server")
        }

        let number = try XCTUnwrap(confirmation(in: guest.err))
        XCTAssertEqual(askedNumber(in: host.err), number, "both sides show the same number")
        XCTAssertTrue(host.err.contains("\(number) · “laptop” wants to join · allow? [y/N]"), host.err)
        XCTAssertTrue(guest.err.contains("\(number) · \(Self.joinQuestion)"), guest.err)
        host.answer("y")
        guest.answer("y")
        let hosted = host.finish()
        let joined = guest.finish()
        assertOK(hosted)
        assertOK(joined)
        XCTAssertTrue(joined.err.contains("Joined"), joined.summary)
        let items = try device.list()
        XCTAssertEqual(items.map { $0["title"] as? String }, ["GitHub"])
        XCTAssertEqual(try device.status()["account"] as? String, account.user, "the new device syncs with the same account")
        try assertRendezvousGone(code)
        XCTAssertEqual(try SyncCommandServer.recordIDs(server: server, account: account, collection: "rendezvous"), [],
                       "nothing of the invitation in the vault's own account either")

        // The code is single use.
        let late = try newDevice(passphrase: a.passphrase)
        assertError(try late.run(["join", "--server", server.absoluteString, "--code", code]), 14, mentions: ["unknown"])
    }

    /// A code refused at once exits while libcurl may still be loading on another thread (the
    /// transport's preload): the process died of SIGSEGV (status 11) about once in twenty, until
    /// every exit waits for that load.
    func testACodeRefusedAtOnceNeverCrashesTheProcess() throws {
        let device = try newDevice(passphrase: "unused")
        var symbols = Array(try InvitationCode.random().description)
        symbols[0] = symbols[0] == "A" ? "B" : "A"
        for _ in 0..<40 {
            let typo = try device.run(["join", "--server", "http://127.0.0.1:9/v1", "--code", String(symbols)])
            assertError(typo, 14, mentions: ["typo"])
        }
    }

    func testAWrongCodeFailsFastAndATypoIsCaughtBeforeAnyRequest() throws {
        let device = try newDevice(passphrase: "unused")
        // A well-formed code nobody issued: the server is asked once and says no.
        let unknown = try InvitationCode.random().description
        assertError(try device.run(["join", "--server", server.absoluteString, "--code", unknown]), 14, mentions: ["unknown"])
        // One symbol changed: refused with nothing listening on the port.
        var symbols = Array(unknown)
        symbols[0] = symbols[0] == "A" ? "B" : "A"
        let typo = try device.run(["join", "--server", "http://127.0.0.1:9/v1", "--code", String(symbols)])
        assertError(typo, 14, mentions: ["typo", "nothing was sent"])
        assertError(try device.run(["join", "--server", server.absoluteString, "--code", "ABC"]), 14, mentions: ["11"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: device.path), "no vault was made")
    }

    func testADeclinedDeviceGetsNothing() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a)
        let device = try newDevice(passphrase: a.passphrase)
        let guest = try join(device, code: code)
        host.waitFor("wants to join")
        host.answer("n")
        guest.waitFor(Self.joinQuestion)
        guest.answer("y")
        let hosted = host.finish()
        assertOK(hosted)
        XCTAssertTrue(hosted.err.contains("Declined: nothing was shared"), hosted.summary)
        let joined = guest.finish()
        assertInviteError(joined, mentions: ["declined"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: device.path), "no vault was made")
        try assertRendezvousGone(code)
    }

    func testAnUnusedInvitationExpiresAndIsRemoved() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a, ["--valid-seconds", "3"])
        let hosted = host.finish(timeout: 30)
        assertInviteError(hosted, mentions: ["expired"])
        let device = try newDevice(passphrase: a.passphrase)
        assertError(try device.run(["join", "--server", server.absoluteString, "--code", code]), 14, mentions: ["unknown"])
        try assertRendezvousGone(code)
    }

    func testACrashedInvitersRendezvousIsRemovedByTheNextSync() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a)
        host.kill9()
        XCTAssertEqual(try rendezvousStatus(code), 200, "the killed inviter left its rendezvous")
        assertOK(try a.run(["sync"], unlock: false))
        try assertRendezvousGone(code)
    }

    func testTwoClaimantsRaceOneWinsAndThePromptShowsItsNumber() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a)
        let first = try newDevice(passphrase: a.passphrase)
        let second = try newDevice(passphrase: a.passphrase)
        let guests = [try join(first, code: code, name: "first"), try join(second, code: code, name: "second")]
        host.waitFor("wants to join")
        // The loser gives up at once; the winner waits for the answer, which is no.
        let deadline = Date().addingTimeInterval(20)
        while guests.allSatisfy(\.isRunning), Date() < deadline { usleep(50_000) }
        host.answer("n")
        // The loser has ended; the winner says yes to its number and hears the no.
        for guest in guests where guest.isRunning && guest.waitFor(Self.joinQuestion) { guest.answer("y") }
        _ = host.finish()
        let results = guests.map { $0.finish(timeout: 20) }
        let losers = results.filter { $0.status == 14 && $0.err.contains("already claimed") }
        XCTAssertEqual(losers.count, 1, results.map(\.summary).joined(separator: "\n"))
        let winner = try XCTUnwrap(zip(["first", "second"], results).first { $0.1.err.contains("declined") },
                                   results.map(\.summary).joined(separator: "\n"))
        XCTAssertTrue(host.err.contains("\(confirmation(in: winner.1.err) ?? "?") · “\(winner.0)” wants to join"),
                      "the prompt names the winner and shows its number: \(host.err)")
        try assertRendezvousGone(code)
    }

    func testATamperedInvitationIsRefused() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a)
        let keys = try RendezvousKeys(code: InvitationCode(parsing: code))
        var request = URLRequest(url: server.appendingPathComponent("buckets/default/collections/rendezvous/records/invite"))
        request.httpMethod = "PATCH"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (body, _) = try SyncCommandServer.send(URLRequest(url: request.url!), account: (keys.accountName, keys.accountPassword))
        var box = try XCTUnwrap(((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["data"] as? [String: Any])?["box"] as? String)
        var bytes = try XCTUnwrap(Data(base64Encoded: box))
        bytes[bytes.count / 2] ^= 0x01
        box = bytes.base64EncodedString()
        request.httpBody = try JSONSerialization.data(withJSONObject: ["data": ["box": box]])
        XCTAssertEqual(try SyncCommandServer.send(request, account: (keys.accountName, keys.accountPassword)).1, 200)
        let device = try newDevice(passphrase: a.passphrase)
        assertError(try device.run(["join", "--server", server.absoluteString, "--code", code]), 14, mentions: ["changed"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: device.path), "no vault was made")
        host.kill9()
    }

    // MARK: Sending an item

    func testAnItemSentWithACodeArrivesOnceAndNothingStays() throws {
        let (a, _) = try inviter()
        let id = try XCTUnwrap(try a.list().first?["id"] as? String)
        // A file stays with the sender, who is told so; the copy names no file it cannot open.
        try a.ok(["attach", id, try a.writeWorkFile("scan.pdf", "%PDF canary")])
        let (sender, code) = try send(a)
        XCTAssertTrue(sender.err.contains("Its 1 file(s) are not sent, only its fields"), sender.err)
        let friend = try TestVault.make()
        vaults.append(friend)
        let receiver = try receive(friend, code: code)
        sender.waitFor("allow? [y/N]")
        receiver.waitFor(Self.receiveQuestion)
        XCTAssertEqual(askedNumber(in: sender.err), confirmation(in: receiver.err), "both sides show the same number")
        XCTAssertTrue(sender.err.contains("· “bob” asks for “GitHub” · allow? [y/N]"), sender.err)
        XCTAssertTrue(receiver.err.contains("\(askedNumber(in: sender.err) ?? "?") · \(Self.receiveQuestion)"), receiver.err)
        sender.answer("y")
        receiver.answer("y")
        let received = receiver.finish()
        assertOK(received)
        XCTAssertTrue(received.err.contains("Received “GitHub”"), received.summary)
        assertOK(sender.finish())
        let items = try friend.list()
        XCTAssertEqual(items.map { $0["title"] as? String }, ["GitHub"])
        let shown = try friend.show(try XCTUnwrap(items.first?["id"] as? String), reveal: true)
        XCTAssertEqual(shown["password"] as? String, "canary-item-password")
        XCTAssertNotEqual(shown["id"] as? String, id, "a copy of its own, not the sender's item")
        XCTAssertNil(shown["attachments"], "no file the receiver could never open")
        try assertRendezvousGone(code)
        assertError(try friend.run(["receive", "--server", server.absoluteString, code]), 14, mentions: ["unknown"])
        XCTAssertEqual(try friend.itemCount(), 1, "received once")
    }

    /// `receive` through an agent asks it for the vault at once, then waits for the sender far
    /// longer than the agent's read timeout (1 s here): the agent closes the silent connection
    /// (as it does a raw client's), and the command opens another for its write.
    func testAnItemReceivedThroughAnAgentArrivesAfterTheAgentClosedTheIdleConnection() throws {
        let (a, _) = try inviter()
        let (sender, code) = try send(a)
        let friend = try TestVault.make()
        vaults.append(friend)
        let unlocked = try CofferProcess.run(["--vault", friend.path, "--passphrase-file", friend.passphraseFile, "unlock"],
                                             home: friend.root, environment: ["COFFER_AGENT_READ_TIMEOUT": "1"])
        assertOK(unlocked)
        let agent = try XCTUnwrap(try AgentProbe.pid(friend))
        defer { kill(agent, SIGTERM) }
        let silent = try AgentWire(friend)
        let receiver = try RunningCoffer(["--vault", friend.path, "receive", "--server", server.absoluteString, code, "--name", "bob"],
                                         home: friend.root, environment: ["XDG_RUNTIME_DIR": friend.root.path])
        sender.waitFor("allow? [y/N]")
        receiver.waitFor("does the sender's screen show this number?")
        XCTAssertTrue(silent.readUntilClosed(seconds: 10).closed, "the agent closes a connection silent for its read timeout")
        sleep(1)
        receiver.say("y")
        sender.answer("y")
        let received = receiver.finish()
        assertOK(received)
        XCTAssertTrue(received.err.contains("Received “GitHub”"), received.summary)
        assertOK(sender.finish())
        let listed = try friend.run(["list", "--json"], unlock: false)
        assertOK(listed)
        XCTAssertEqual(try listed.jsonArray().map { $0["title"] as? String }, ["GitHub"])
        XCTAssertEqual(try AgentProbe.pid(friend), agent, "the agent served it all")
    }

    /// Issue 28 finding 2: `send` handed the item to whoever claimed first. Now nothing leaves
    /// before the sender compared the numbers and said yes: the receiver waits with no answer on
    /// the server, and a no gives it a refusal and nothing else.
    func testSendAsksBeforeAnythingLeavesAndANoSendsNothing() throws {
        let (a, _) = try inviter()
        let (sender, code) = try send(a)
        let friend = try TestVault.make()
        vaults.append(friend)
        let receiver = try receive(friend, code: code)
        sender.waitFor("allow? [y/N]")
        receiver.waitFor(Self.receiveQuestion)
        receiver.answer("y")
        usleep(1_500_000)  // three of the receiver's polls
        XCTAssertTrue(receiver.isRunning, "the receiver got an answer nobody gave: \(receiver.err)")
        XCTAssertEqual(try rendezvousRecords(code), ["claim", "invite", "key", "reveal"], "no answer before the sender said yes")
        sender.answer("n")
        let refused = receiver.finish()
        assertInviteError(refused, mentions: ["declined"])
        let sent = sender.finish()
        assertOK(sent)
        XCTAssertTrue(sent.err.contains("Declined: nothing was shared"), sent.summary)
        XCTAssertEqual(try friend.itemCount(), 0, "nothing was added")
        try assertRendezvousGone(code)
    }

    /// Issue 28 finding 6: a payload of one item plus many more added them all. Here the sender is
    /// a hostile one (this test, with the code's rendezvous) that answers with two items: refused,
    /// nothing added, nothing left on the server.
    func testReceiveRefusesAPayloadOfMoreThanOneItem() async throws {
        let friend = try TestVault.make()
        vaults.append(friend)
        let host = try await InvitationHost.open(server: server, kind: .item, lifetime: 120, remembering: nil)
        let receiver = try receive(friend, code: host.code.description)
        let claim = try await host.waitForClaim(polling: 0.2)
        let now = Timestamp(Date())
        let items = [Item(title: "Wi-Fi", created: now), Item(title: "Bank login (new)", created: Timestamp(milliseconds: 1))]
        try await host.answer(claim, allowing: Data(try ItemExchange.text(items.map(ItemExchange.exportObject)).utf8))
        receiver.waitFor(Self.receiveQuestion)
        receiver.answer("y")
        let received = receiver.finish()
        assertInviteError(received, mentions: ["2 items", "nothing was added"])
        XCTAssertFalse(received.err.contains("Received"), received.summary)
        XCTAssertEqual(try friend.itemCount(), 0, "nothing was added")
        try? await host.close(waiting: 5)
        try assertRendezvousGone(host.code.description)
    }

    // MARK: A stranger who knows the code (issue 28)

    /// Finding 1 (b): someone with the code swaps the claim for one committing to its own key and
    /// the inviter's key for its own, as fast as it can. It had to fix its keys before it could
    /// know the number, so the two sides could only differ; the inviter sees a record replaced
    /// and ends the exchange before asking anyone anything: exit 14, no account handed over,
    /// nothing left on the server.
    func testAStrangerWhoKnowsTheCodeCannotStandBetweenTheTwoDevices() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a)
        let stranger = try RendezvousStranger(code: code, server: server)
        let device = try newDevice(passphrase: a.passphrase)
        let guest = try join(device, code: code)
        guest.answer("y")  // even a yes, given ahead, takes nothing
        try blocking { try await stranger.standInTheMiddle() }
        let hosted = host.finish()
        let joined = guest.finish()
        assertInviteError(hosted, mentions: ["replaced", "nothing was handed over"])
        XCTAssertFalse(hosted.err.contains("allow?"), "the inviter asked about a tampered exchange: \(hosted.summary)")
        XCTAssertFalse(hasEscape(hosted), hosted.summary)
        assertExit(joined, 14)
        XCTAssertFalse(joined.err.contains("Allowed"), joined.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: device.path), "no vault was made")
        try assertRendezvousGone(code)
    }

    /// Finding 1 (a): a stranger claims first with a name that would redraw the prompt with a
    /// fake number. The question shows the real number first and the name escaped and cut; no
    /// ESC reaches the terminal. When the stranger then rewrites its claim while the person
    /// decides, the yes finds a record replaced: nothing is handed over.
    func testAStrangersClaimCannotHideTheNumberOrChangeAfterTheQuestion() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a)
        let stranger = try RendezvousStranger(code: code, server: server)
        let number = try blocking { try await stranger.claimAndReveal() }
        host.waitFor("allow? [y/N]")
        let shown = TerminalText.name(RendezvousStranger.hostileName)
        XCTAssertTrue(host.err.contains("\(number) · “\(shown)” wants to join · allow? [y/N]"), host.err)
        XCTAssertTrue(shown.hasPrefix("\\r\\e[2K"), shown)
        XCTAssertEqual(askedNumber(in: host.err), number)
        try blocking { try await stranger.overwrite(.claim, stranger.claim(name: "laptop")) }
        host.answer("y")
        let hosted = host.finish()
        assertInviteError(hosted, mentions: ["replaced"])
        XCTAssertFalse(hosted.err.contains("Done"), hosted.summary)
        XCTAssertFalse(hasEscape(hosted), "an ESC reached the inviter's terminal: \(hosted.summary)")
        try assertRendezvousGone(code)
    }

    /// The same stranger against `send`: the receiver gets no item.
    func testAStrangerWhoKnowsTheCodeCannotStandBetweenSenderAndReceiver() throws {
        let (a, _) = try inviter()
        let (sender, code) = try send(a)
        let stranger = try RendezvousStranger(code: code, server: server)
        let friend = try TestVault.make()
        vaults.append(friend)
        let receiver = try receive(friend, code: code)
        receiver.answer("y")  // even a yes, given ahead, takes nothing
        try blocking { try await stranger.standInTheMiddle() }
        let sent = sender.finish()
        let received = receiver.finish()
        assertInviteError(sent, mentions: ["replaced"])
        XCTAssertFalse(sent.err.contains("allow?"), sent.summary)
        assertExit(received, 14)
        XCTAssertEqual(try friend.itemCount(), 0, "nothing was added")
        try assertRendezvousGone(code)
    }

    // MARK: The number compared on the claimant's side too

    /// Stops `inviter` as a slow one, so that a stranger always writes `key` before it; a test
    /// that ends early continues it (a stopped process would keep a SIGTERM pending forever).
    private func stop(_ inviter: RunningCoffer) {
        let pid = inviter.pid
        XCTAssertEqual(kill(pid, SIGSTOP), 0)
        addTeardownBlock { kill(pid, SIGCONT) }
    }

    /// Continues the stopped `inviter`: it finds the rendezvous gone and ends with its usual
    /// error, without asking its person anything.
    private func assertEndsWithoutAsking(resuming inviter: RunningCoffer, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(kill(inviter.pid, SIGCONT), 0, file: file, line: line)
        let result = inviter.finish()
        assertInviteError(result, mentions: ["replaced", "nothing was handed over"], file: file, line: line)
        XCTAssertFalse(result.err.contains("allow?"), result.summary, file: file, line: line)
    }

    /// Someone who overheard the code writes `key` before the real sender read the claim (the
    /// sender is stopped here, as a slow one would be, so the stranger always wins the race),
    /// and answers with an item of its own: a phishing login, sealed to the key the receiver
    /// revealed to it. The receiver cannot tell it from the sender; its person, asked whether the
    /// sender's screen shows the number, says no: exit 14, nothing added, nothing left on the
    /// server, and the sender, once it runs again, ends with its usual error.
    func testAReceiverWhoSaysNoTakesNothingFromAStrangerWhoWroteTheKeyFirst() throws {
        let (a, _) = try inviter()
        let (sender, code) = try send(a)
        stop(sender)
        let stranger = try RendezvousStranger(code: code, server: server)
        let friend = try TestVault.make()
        vaults.append(friend)
        let receiver = try receive(friend, code: code)
        let phishing = Item(title: "Bank login", origins: ["https://bank.example.net"],
                            entry: Entry(username: "bob", password: "typed-into-a-stranger's-page"), created: Timestamp(Date()))
        let payload = try SentItem.payload(for: phishing)
        let number = try blocking { try await stranger.standInForTheInviter(allowing: payload) }
        receiver.waitFor(Self.receiveQuestion)
        XCTAssertTrue(receiver.err.contains("\(number) · \(Self.receiveQuestion)"),
                      "the receiver shows the number it shares with the stranger: \(receiver.err)")
        XCTAssertEqual(try rendezvousRecords(code), ["answer", "claim", "invite", "key", "reveal"],
                       "the stranger's answer is there to be taken")
        receiver.answer("n")
        let received = receiver.finish()
        assertInviteError(received, mentions: ["not confirmed", "nothing was accepted"])
        XCTAssertFalse(received.err.contains("Received"), received.summary)
        XCTAssertEqual(try friend.itemCount(), 0, "the stranger's item was not added")
        try assertRendezvousGone(code)
        assertEndsWithoutAsking(resuming: sender)
    }

    /// The same against `join --code`: the stranger hands over its own sync account (one that
    /// holds a vault the new device's passphrase opens, so a device that took it would join it
    /// completely). A no at the new device's question keeps it out: no vault, so no account.
    func testADeviceWhoseNumberIsNotConfirmedJoinsNoStrangersAccount() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a)
        stop(host)
        let (strangersVault, strangersAccount) = try inviter()
        let stranger = try RendezvousStranger(code: code, server: server)
        let device = try newDevice(passphrase: strangersVault.passphrase)
        let guest = try join(device, code: code)
        let grant = try JSONSerialization.data(withJSONObject: ["server": server.absoluteString, "user": strangersAccount.user,
                                                                "password": strangersAccount.password])
        let number = try blocking { try await stranger.standInForTheInviter(allowing: grant) }
        guest.waitFor(Self.joinQuestion)
        XCTAssertTrue(guest.err.contains("\(number) · \(Self.joinQuestion)"), guest.err)
        XCTAssertEqual(try rendezvousRecords(code), ["answer", "claim", "invite", "key", "reveal"])
        guest.answer("n")
        let joined = guest.finish()
        assertInviteError(joined, mentions: ["not confirmed", "nothing was accepted"])
        XCTAssertFalse(joined.err.contains("Allowed"), joined.summary)
        XCTAssertFalse(joined.err.contains(strangersAccount.user), joined.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: device.path), "no vault, so no sync account, on the new device")
        try assertRendezvousGone(code)
        assertEndsWithoutAsking(resuming: host)
    }

    /// No answer at the new device's question (its input ends) is a no, even when the inviter
    /// allows it: nothing is taken, and the rendezvous the new device removes ends the inviter's
    /// exchange with its usual error instead of a "Done".
    func testNoAnswerOnTheNewDeviceIsANoAndEndsTheInvitersExchangeToo() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a)
        let device = try newDevice(passphrase: a.passphrase)
        let guest = try join(device, code: code)
        host.waitFor("wants to join")
        guest.waitFor(Self.joinQuestion)
        guest.closeInput()
        let joined = guest.finish()
        assertInviteError(joined, mentions: ["not confirmed"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: device.path), "no vault was made")
        try assertRendezvousGone(code)
        host.answer("y")
        let hosted = host.finish()
        assertInviteError(hosted, mentions: ["replaced", "nothing was handed over"])
        XCTAssertFalse(hosted.err.contains("Done"), hosted.summary)
    }

    // MARK: Prompts

    /// Finding 7: the question read its answer only at the end of stdin, so a script that wrote
    /// `y` and kept the pipe open hung until the code expired. One line is an answer.
    func testAnAnswerOnAPipeThatStaysOpenIsRead() throws {
        let (a, _) = try inviter()
        let (host, code) = try invite(a)
        let device = try newDevice(passphrase: a.passphrase)
        let guest = try join(device, code: code)
        host.waitFor("wants to join")
        host.say("y")
        guest.waitFor(Self.joinQuestion)
        guest.say("y")
        let joined = guest.finish(timeout: 60)
        XCTAssertFalse(joined.timedOut, "the new device waited for the end of its input: \(joined.summary)")
        assertOK(joined)
        let hosted = host.finish(timeout: 60)
        XCTAssertFalse(hosted.timedOut, "the inviter waited for the end of its input: \(hosted.summary)")
        assertOK(hosted)
        XCTAssertTrue(hosted.err.contains("Done"), hosted.summary)
    }
}

