import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

/// Issue 28: anyone who knows an invitation's code holds the rendezvous account too. Here a
/// stranger in the test, with the code's credentials, rewrites or writes first each record of a
/// real exchange on the real Kinto; every time the exchange ends with `replaced`, nothing opens,
/// and the sides never reach a number the stranger chose.
final class InvitationTakeoverTests: XCTestCase {
    private var server: TestServer!

    override func setUp() async throws {
        server = try TestServer.require()
    }

    /// A stranger who knows `code`: writes any record, over whatever is there.
    private struct Stranger {
        let rendezvous: Rendezvous
        let handshake = PairingHandshake()

        init(code: InvitationCode, server: URL) throws {
            rendezvous = Rendezvous(server: server, keys: try RendezvousKeys(code: code))
        }

        func overwrite(_ id: Rendezvous.Record, _ object: [String: Any]) async throws {
            let plaintext = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            let written = try await rendezvous.client.putRecord(in: Rendezvous.collection, id: id.rawValue,
                                                                data: ["box": rendezvous.keys.seal(plaintext, label: id.rawValue)],
                                                                onlyIfNew: false)
            XCTAssertNotNil(written)
        }

        /// A claim of its own: an escape-laden name and a commitment to its own key.
        var claim: [String: Any] {
            InvitationRecords.Claim(name: "\r\u{1B}[2K\u{201C}laptop\u{201D} wants to join · 9264-74 · allow? [y/N] \u{1B}[8m",
                                    commitment: PairingTranscript.commitment(to: handshake.publicKey)).object
        }

        var key: [String: Any] { InvitationRecords.PublicKey(key: handshake.publicKey).object }
    }

    private func open() async throws -> (host: InvitationHost, stranger: Stranger) {
        let host = try await InvitationHost.open(server: server.url, kind: .item, lifetime: 120, remembering: nil)
        return (host, try Stranger(code: host.code, server: server.url))
    }

    private func assertReplaced<T>(_ step: @autoclosure () async throws -> T, _ message: String,
                                   file: StaticString = #filePath, line: UInt = #line) async {
        do {
            _ = try await step()
            XCTFail("\(message): the exchange went on", file: file, line: line)
        } catch {
            XCTAssertEqual(error as? InvitationError, .replaced, "\(message): \(error)", file: file, line: line)
        }
    }

    /// After the inviter's clean-up (the claimant may have removed the account already).
    private func assertGone(_ host: InvitationHost, file: StaticString = #filePath, line: UInt = #line) async throws {
        try? await host.remove()
        let status = try RendezvousProbe.status(server: server.url, user: host.rendezvous.keys.accountName,
                                                password: host.rendezvous.keys.accountPassword)
        XCTAssertEqual(status, 401, "the rendezvous is still on the server", file: file, line: line)
    }

    /// The claim swapped for the stranger's before the inviter reads it: the inviter shows its key
    /// to the stranger's commitment, the real claimant reveals its own key, which does not match.
    /// To match, the stranger would have had to commit to a key before it saw the inviter's.
    func testAClaimSwappedBeforeTheInviterReadsItDoesNotMatchTheReveal() async throws {
        let (host, stranger) = try await open()
        let pending = try await InvitationGuest.sendClaim(server: server.url, code: host.code, kind: .item, name: "bob")
        try await stranger.overwrite(.claim, stranger.claim)
        let taken = try await host.takeClaim(polling: 0.1)
        XCTAssertTrue(taken.claim.name.contains("\u{1B}"), "the inviter read the stranger's claim")
        let guest = try await pending.exchangeKeys(polling: 0.1)
        XCTAssertFalse(guest.confirmation.isEmpty)
        await assertReplaced(try await host.awaitReveal(of: taken, polling: 0.1), "a reveal that does not match the commitment")
        try await assertGone(host)
    }

    /// The claim rewritten after the inviter read it (to show another name, say): seen when the
    /// inviter checks its records, before it asks anyone anything.
    func testAClaimRewrittenAfterTheInviterReadItEndsTheExchange() async throws {
        let (host, stranger) = try await open()
        let pending = try await InvitationGuest.sendClaim(server: server.url, code: host.code, kind: .item, name: "bob")
        let taken = try await host.takeClaim(polling: 0.1)
        try await stranger.overwrite(.claim, stranger.claim)
        _ = try await pending.exchangeKeys(polling: 0.1)
        await assertReplaced(try await host.awaitReveal(of: taken, polling: 0.1), "a claim rewritten")
        try await assertGone(host)
    }

    /// The inviter's key swapped for the stranger's under the claimant: the claimant reveals to
    /// the stranger's key, and the inviter, checking its own `key` record, ends the exchange.
    func testTheInvitersKeySwappedUnderTheClaimantEndsTheExchange() async throws {
        let (host, stranger) = try await open()
        let pending = try await InvitationGuest.sendClaim(server: server.url, code: host.code, kind: .item, name: "bob")
        let taken = try await host.takeClaim(polling: 0.1)
        try await stranger.overwrite(.key, stranger.key)
        _ = try await pending.exchangeKeys(polling: 0.1)
        await assertReplaced(try await host.awaitReveal(of: taken, polling: 0.1), "the inviter's key swapped")
        try await assertGone(host)
    }

    /// Records the stranger writes first (the inviter's key, the claimant's reveal): the side whose
    /// write-once finds it there ends the exchange, and the claimant removes the rendezvous.
    func testARecordWrittenFirstByAStrangerEndsTheExchange() async throws {
        let (host, stranger) = try await open()
        _ = try await InvitationGuest.sendClaim(server: server.url, code: host.code, kind: .item, name: "bob")
        try await stranger.overwrite(.key, stranger.key)
        await assertReplaced(try await host.takeClaim(polling: 0.1), "a key written first by the stranger")
        try await assertGone(host)

        let (second, other) = try await open()
        let pending = try await InvitationGuest.sendClaim(server: server.url, code: second.code, kind: .item, name: "bob")
        _ = try await second.takeClaim(polling: 0.1)
        try await other.overwrite(.reveal, other.key)
        await assertReplaced(try await pending.exchangeKeys(polling: 0.1), "a reveal written first by the stranger")
        let status = try RendezvousProbe.status(server: server.url, user: second.rendezvous.keys.accountName,
                                                password: second.rendezvous.keys.accountPassword)
        XCTAssertEqual(status, 401, "the claimant removed the rendezvous, so the inviter stops too")
    }

    /// Checked again at the end: a record rewritten while the person decides stops the inviter
    /// before it answers, and one rewritten after it answered stops the claimant before it trusts
    /// the answer. Nothing is handed over either way.
    func testEachSideChecksEveryRecordAgainBeforeTheAnswer() async throws {
        let (host, stranger) = try await open()
        let pending = try await InvitationGuest.sendClaim(server: server.url, code: host.code, kind: .item, name: "bob")
        let taken = try await host.takeClaim(polling: 0.1)
        let guest = try await pending.exchangeKeys(polling: 0.1)
        let claim = try await host.awaitReveal(of: taken, polling: 0.1)
        XCTAssertEqual(claim.agreement.confirmation, guest.confirmation)
        // The same offer, sealed anew: same content, another version.
        try await stranger.overwrite(.invite, InvitationRecords.Offer(kind: host.offer.kind, expires: host.offer.expires).object)
        await assertReplaced(try await host.answer(claim, allowing: Data("secret".utf8)), "the invite rewritten before the answer")
        let answer = try await host.rendezvous.client.record(in: Rendezvous.collection, id: "answer")
        XCTAssertNil(answer, "nothing was answered")
        try await assertGone(host)

        let (second, other) = try await open()
        let pendingAgain = try await InvitationGuest.sendClaim(server: server.url, code: second.code, kind: .item, name: "bob")
        let takenAgain = try await second.takeClaim(polling: 0.1)
        let guestAgain = try await pendingAgain.exchangeKeys(polling: 0.1)
        let claimAgain = try await second.awaitReveal(of: takenAgain, polling: 0.1)
        try await second.answer(claimAgain, allowing: Data("secret".utf8))
        try await other.overwrite(.reveal, other.key)
        await assertReplaced(try await guestAgain.waitForAnswer(polling: 0.1), "the reveal rewritten before the answer was read")
        try await assertGone(second)
    }

    /// A stranger who writes `key` before the inviter read the claim shares a number with the
    /// claimant and answers first: nothing in the records tells it from the inviter. Only the
    /// claimant's person can (the inviting screen shows an error): their no takes nothing, is
    /// asked before the answer is read, and removes the rendezvous, so the real inviter stops too.
    func testAClaimantWhosePersonSaysNoTakesNothingFromAStrangerWhoWroteTheKeyFirst() async throws {
        let (host, stranger) = try await open()
        let pending = try await InvitationGuest.sendClaim(server: server.url, code: host.code, kind: .item, name: "bob")
        try await stranger.overwrite(.key, stranger.key)
        let guest = try await pending.exchangeKeys(polling: 0.1)
        let agreement = try stranger.handshake.agree(PairingTranscript(
            kind: host.offer.kind, expires: host.offer.expires, name: "bob", commitment: pending.claim.commitment,
            inviterKey: stranger.handshake.publicKey, claimantKey: pending.handshake.publicKey))
        XCTAssertEqual(agreement.confirmation, guest.confirmation, "the stranger shares the claimant's number")
        let grant = try agreement.seal(Data("a phishing login".utf8), label: "grant")
        try await stranger.overwrite(.answer, InvitationRecords.Answer(grant: grant).object)
        var wasAsked = false
        do {
            _ = try await guest.takeAnswer {
                wasAsked = true
                return false
            }
            XCTFail("the answer was taken after a no")
        } catch {
            XCTAssertEqual(error as? InvitationError, .unconfirmed)
        }
        XCTAssertTrue(wasAsked)
        let status = try RendezvousProbe.status(server: server.url, user: host.rendezvous.keys.accountName,
                                                password: host.rendezvous.keys.accountPassword)
        XCTAssertEqual(status, 401, "the claimant removed the rendezvous")
        await assertReplaced(try await host.takeClaim(polling: 0.1), "the real inviter, after the claimant's no")
    }

    /// What `receive` takes: exactly one item.
    func testAPayloadOfAnythingButOneItemIsRefused() throws {
        let now = Timestamp(milliseconds: 1_767_226_200_000)
        let one = Item(title: "Wi-Fi", created: now)
        let two = Data(try ItemExchange.text([ItemExchange.exportObject(one), ItemExchange.exportObject(Item(title: "Bank", created: now))]).utf8)
        XCTAssertThrowsError(try SentItem.item(from: two, now: now)) {
            XCTAssertEqual($0 as? InvitationError, .notOneItem(count: 2))
        }
        XCTAssertThrowsError(try SentItem.item(from: Data("[]".utf8), now: now)) {
            XCTAssertEqual($0 as? InvitationError, .notOneItem(count: 0))
        }
        let received = try SentItem.item(from: try SentItem.payload(for: one), now: now)
        XCTAssertEqual(received.title, "Wi-Fi")
        XCTAssertNotEqual(received.id, one.id, "a copy of its own")
    }

    /// A claim's name longer than Coffer writes is a record someone else wrote.
    func testAClaimWithAnOverlongNameIsTampered() {
        let commitment = Data(repeating: 7, count: 32).base64EncodedString()
        XCTAssertNoThrow(try InvitationRecords.Claim(["name": String(repeating: "é", count: 100), "commitment": commitment]))
        XCTAssertThrowsError(try InvitationRecords.Claim(["name": String(repeating: "x", count: 201), "commitment": commitment])) {
            XCTAssertEqual($0 as? InvitationError, .tampered)
        }
        XCTAssertThrowsError(try InvitationRecords.Claim(["name": "laptop", "commitment": "AAAA"])) {
            XCTAssertEqual($0 as? InvitationError, .tampered)
        }
    }
}
