import CofferCore
@testable import CofferSync
import Foundation
import XCTest
@testable import CofferTUI

/// The Devices page (`D`) and the remote lock notice: golden frames and the key table's decisions.
final class DevicesPageTests: XCTestCase {
    let now = FakeClock.start

    static let devices = [
        KnownDevice(id: "9c1f0000-aaaa", name: "desktop", publicKey: "k2", capabilities: ["lock"],
                    lastSeen: Timestamp(FakeClock.start.addingTimeInterval(-7200)), isCurrent: false),
        KnownDevice(id: "forged-1", name: nil, publicKey: "k3", capabilities: [],
                    lastSeen: Timestamp(FakeClock.start.addingTimeInterval(-60)), isCurrent: false),
        KnownDevice(id: "1a2b0000-bbbb", name: "laptop", publicKey: "k1", capabilities: ["lock"],
                    lastSeen: Timestamp(FakeClock.start), isCurrent: true),
    ]

    func devicesPage() -> ScreenState {
        var state = Fixtures.unlocked()
        _ = Update.apply(.key(.character("D")), to: &state, now: now)
        _ = Update.apply(.devicesLoaded(Self.devices), to: &state, now: now)
        return state
    }

    func testDevicesPage() {
        var state = devicesPage()
        guard case .devices(let page) = state.page else { return XCTFail("D did not open the Devices page") }
        XCTAssertEqual(page.devices?.map(\.id), ["1a2b0000-bbbb", "9c1f0000-aaaa", "forged-1"], "this device first")
        XCTAssertEqual(KeyBindings.binding(for: .character("x"), in: .devices)?.disabledReason(state), "That is this device.")
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "devices")
        XCTAssertEqual(Update.apply(.key(.character("x")), to: &state, now: now),
                       [.sendToDevice(.lock, id: "9c1f0000-aaaa", name: "desktop")])
        XCTAssertEqual(Update.apply(.key(.character("o")), to: &state, now: now), [])
        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: now),
                       [.sendToDevice(.signout, id: "9c1f0000-aaaa", name: "desktop")], "sign-out asks first")
        _ = Update.apply(.key(.character("j")), to: &state, now: now)
        XCTAssertEqual(KeyBindings.binding(for: .character("x"), in: .devices)?.disabledReason(state),
                       "The device is unverified: it is never sent a message.")
        XCTAssertEqual(Update.apply(.key(.character("x")), to: &state, now: now), [], "never messaged")
        let queued = Update.apply(.deviceActionFinished("Queued lock for desktop."), to: &state, now: now)
        XCTAssertEqual(queued.first, .loadDevices)
        XCTAssertTrue(queued.contains(.startSync(.manual)), "the scheduler's sync sends the outbox: \(queued)")
    }

    func testRemoteLockShowsWhoLocked() {
        var state = Fixtures.unlocked()
        var report = SyncReport()
        report.remoteLock = DeviceLockNotice(from: "desktop", at: Timestamp(now.addingTimeInterval(-30)))
        state.sync.running = .periodic
        let effects = Update.apply(.syncFinished(report), to: &state, now: now)
        XCTAssertTrue(state.isLocked)
        XCTAssertTrue(effects.contains(.lockVault))
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "locked-remotely")
    }

    /// A shared vault's members changed while it was open: the engine locked it; the screen
    /// unlocks it again with the keys it kept, or, without them, locks and says why.
    func testANewEpochLocksTheScreenAndSaysWhy() {
        var state = Fixtures.unlocked()
        var report = SyncReport()
        state.sync.running = .periodic
        XCTAssertFalse(Update.apply(.syncFinished(report), to: &state, now: now).contains(.lockVault))
        XCTAssertFalse(state.isLocked)
        report.newEpoch = 3
        state.sync.running = .periodic
        // The kept keys are tried first: the screen stays unlocked while they take the new keys.
        XCTAssertTrue(Update.apply(.syncFinished(report), to: &state, now: now).contains(.takeNewKeys))
        XCTAssertFalse(state.isLocked)
        let effects = Update.apply(.newKeysNeedUnlock, to: &state, now: now)
        XCTAssertTrue(state.isLocked)
        XCTAssertTrue(effects.contains(.lockVault))
        XCTAssertTrue(Render.frame(state, size: .standard, now: now).text.contains("The members changed: unlock to take the vault's new keys"))
    }

    /// `i` opens an invitation; the code shows at the foot of the page; a claim asks y/n with the
    /// claimant's name and number; each answer goes to the runtime; the end is a notice.
    func testInvitingADeviceShowsTheCodeThenAsks() throws {
        var state = devicesPage()
        XCTAssertEqual(Update.apply(.key(.character("i")), to: &state, now: now), [.openInvitation])
        XCTAssertEqual(KeyBindings.binding(for: .character("i"), in: .devices)?.disabledReason(state), "An invitation is open.")
        let code = try Self.code()
        _ = Update.apply(.invitationOpened(code: code.description, expires: now.addingTimeInterval(600),
                                           server: "https://kinto.example/v1"), to: &state, now: now)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "devices-invitation")

        let (ticket, agreement) = try claim(named: "laptop")
        XCTAssertEqual(Update.apply(.invitationClaimed(ticket), to: &state, now: now), [])
        guard case .confirm(let confirmation) = state.overlay else { return XCTFail("no question asked") }
        XCTAssertEqual(confirmation.question, "\(agreement.confirmation) · “laptop” wants to join · allow?")
        var declining = state
        XCTAssertEqual(Update.apply(.key(.character("n")), to: &declining, now: now), [.answerInvitation(ticket, allow: false)],
                       "no is an answer too")
        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: now), [.answerInvitation(ticket, allow: true)])
        XCTAssertEqual(Update.apply(.invitationFinished("“laptop” joined; nothing is left on the server."), to: &state, now: now),
                       [.loadDevices])
        guard case .devices(let page) = state.page else { return XCTFail("left the Devices page") }
        XCTAssertNil(page.invitation)
        XCTAssertEqual(state.notice?.text, "“laptop” joined; nothing is left on the server.")
    }

    /// A claimant's name is someone else's text: a name that imitates the question and pads the
    /// real number out of the box (issue 28) shows escaped and cut, after the number, which stays
    /// on the screen.
    func testAClaimantsNameCannotHideTheNumber() throws {
        var state = devicesPage()
        _ = Update.apply(.key(.character("i")), to: &state, now: now)
        let name = "laptop\u{201D} wants to join · 0000-00 · allow?" + String(repeating: " ", count: 120) + "\u{1B}[8m\r"
        let (ticket, agreement) = try claim(named: name)
        _ = Update.apply(.invitationClaimed(ticket), to: &state, now: now)
        guard case .confirm(let confirmation) = state.overlay else { return XCTFail("no question asked") }
        XCTAssertTrue(confirmation.question.hasPrefix("\(agreement.confirmation) · “laptop"), confirmation.question)
        XCTAssertFalse(confirmation.question.unicodeScalars.contains { $0.value < 0x20 }, confirmation.question)
        XCTAssertLessThan(confirmation.question.count, 100, "the name is cut short")
        let screen = Render.frame(state, size: .standard, now: now).text
        XCTAssertTrue(screen.contains(agreement.confirmation), screen)
        XCTAssertFalse(screen.contains("\u{1B}"), screen)
    }

    /// A claim arrives only for the Devices page that shows the invitation: after that page was
    /// left, or when the screen locks with the question open, the answer is no (issue 30: a
    /// question is never left over, nor asked on, a page it does not belong to).
    func testAClaimWithoutItsDevicesPageIsDeclined() throws {
        var state = devicesPage()
        _ = Update.apply(.key(.character("i")), to: &state, now: now)
        _ = Update.apply(.key(.escape), to: &state, now: now)
        for key in [Key.character("n")] { _ = Update.apply(.key(key), to: &state, now: now) }
        let (ticket, _) = try claim(named: "laptop")
        XCTAssertEqual(Update.apply(.invitationClaimed(ticket), to: &state, now: now), [.answerInvitation(ticket, allow: false)])
        XCTAssertNil(state.overlay, "asked over the form, the next typed y would allow the device unread")
        XCTAssertEqual(state.notice?.text, "Declined “laptop”: the Devices page that invited it was closed.")

        var asking = devicesPage()
        _ = Update.apply(.key(.character("i")), to: &asking, now: now)
        _ = Update.apply(.invitationClaimed(ticket), to: &asking, now: now)
        let effects = Update.apply(.tick, to: &asking, now: now.addingTimeInterval(301))  // auto-lock
        XCTAssertTrue(asking.isLocked)
        XCTAssertTrue(effects.contains(.answerInvitation(ticket, allow: false)), "\(effects)")
        XCTAssertNil(asking.overlay)
    }

    /// A claim that comes while another question is open on the page (remove a device?) waits
    /// for it: the key meant for that question never answers the claim, and the claim is asked
    /// once that question is answered; left unasked when the page goes, it is declined.
    func testAClaimDuringAnotherQuestionWaitsForIt() throws {
        var state = devicesPage()
        for key in ["i", "j", "o"] { _ = Update.apply(.key(.character(Character(key))), to: &state, now: now) }
        guard case .confirm(let other) = state.overlay else { return XCTFail("sign-out asks first: \(String(describing: state.overlay))") }
        let (ticket, agreement) = try claim(named: "laptop")
        XCTAssertEqual(Update.apply(.invitationClaimed(ticket), to: &state, now: now), [])
        XCTAssertEqual(state.overlay, .confirm(other), "the open question stays; the claim does not replace it")
        _ = Update.apply(.key(.character("n")), to: &state, now: now)
        guard case .confirm(let asked) = state.overlay else { return XCTFail("the claim is asked next") }
        XCTAssertEqual(asked.question, "\(agreement.confirmation) · “laptop” wants to join · allow?")
        XCTAssertEqual(Update.apply(.key(.character("y")), to: &state, now: now), [.answerInvitation(ticket, allow: true)])

        var leaving = devicesPage()
        for key in ["i", "j", "o"] { _ = Update.apply(.key(.character(Character(key))), to: &leaving, now: now) }
        _ = Update.apply(.invitationClaimed(ticket), to: &leaving, now: now)
        let effects = Update.apply(.tick, to: &leaving, now: now.addingTimeInterval(301))  // auto-lock
        XCTAssertTrue(leaving.isLocked)
        XCTAssertTrue(effects.contains(.answerInvitation(ticket, allow: false)), "\(effects)")
        XCTAssertNil(leaving.overlay)
        XCTAssertNil(leaving.heldClaim)
    }

    static func code() throws -> InvitationCode {
        try InvitationCode(parsing: "K7Q4-M2XP-9RT".dropLast() + "\(checkSymbol("K7Q4M2XP9R"))")
    }

    /// A claim by `name` on `code()`'s invitation, and the agreement whose number it shows.
    func claim(named name: String) throws -> (InvitationTicket, PairingHandshake.Agreement) {
        try Self.claim(named: name, now: now)
    }

    /// `claim(named:)` for other pages' invitations (the Members page's).
    static func claim(named name: String, now: Date) throws -> (InvitationTicket, PairingHandshake.Agreement) {
        let code = try Self.code()
        let handshake = PairingHandshake(), claimant = PairingHandshake()
        let offer = InvitationRecords.Offer(kind: "device", expires: 1_767_226_200_000)
        let host = InvitationHost(code: code, expires: now.addingTimeInterval(600), kind: .device,
                                  rendezvous: Rendezvous(server: URL(string: "http://127.0.0.1:9/v1")!, keys: try RendezvousKeys(code: code)),
                                  handshake: handshake, offer: offer, invite: Rendezvous.Seen(box: "", lastModified: 1))
        let agreement = try claimant.agree(PairingTranscript(kind: offer.kind, expires: offer.expires, name: name,
                                                             commitment: PairingTranscript.commitment(to: claimant.publicKey),
                                                             inviterKey: handshake.publicKey, claimantKey: claimant.publicKey))
        return (InvitationTicket(host: host, claim: InvitationHost.Claim(name: name, agreement: agreement, records: [:])), agreement)
    }

    /// The check symbol that makes `symbols` a valid code (Luhn mod 32), found by trying each.
    private static func checkSymbol(_ symbols: String) -> Character {
        "0123456789ABCDEFGHJKMNPQRSTVWXYZ".first { (try? InvitationCode(parsing: symbols + String($0))) != nil } ?? "0"
    }
}
