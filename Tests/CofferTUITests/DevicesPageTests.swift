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

    /// `i` opens an invitation; the code shows at the foot of the page; a claim asks y/n with the
    /// claimant's name and number; each answer goes to the runtime; the end is a notice.
    func testInvitingADeviceShowsTheCodeThenAsks() throws {
        var state = devicesPage()
        XCTAssertEqual(Update.apply(.key(.character("i")), to: &state, now: now), [.openInvitation])
        XCTAssertEqual(KeyBindings.binding(for: .character("i"), in: .devices)?.disabledReason(state), "An invitation is open.")
        let code = try InvitationCode(parsing: "K7Q4-M2XP-9RT".dropLast() + "\(checkSymbol("K7Q4M2XP9R"))")
        _ = Update.apply(.invitationOpened(code: code.description, expires: now.addingTimeInterval(600),
                                           server: "https://kinto.example/v1"), to: &state, now: now)
        assertSnapshot(Render.frame(state, size: .standard, now: now), named: "devices-invitation")

        let host = InvitationHost(code: code, expires: now.addingTimeInterval(600), kind: .device,
                                  rendezvous: Rendezvous(server: URL(string: "http://127.0.0.1:9/v1")!, keys: try RendezvousKeys(code: code)),
                                  handshake: PairingHandshake())
        let claimant = PairingHandshake()
        let agreement = try claimant.agree(inviter: PairingHandshake().publicKey, claimant: claimant.publicKey)
        let ticket = InvitationTicket(host: host, claim: InvitationHost.Claim(name: "laptop", agreement: agreement))
        XCTAssertEqual(Update.apply(.invitationClaimed(ticket), to: &state, now: now), [])
        guard case .confirm(let confirmation) = state.overlay else { return XCTFail("no question asked") }
        XCTAssertEqual(confirmation.question, "“laptop” wants to join · \(agreement.confirmation) · allow?")
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

    /// The check symbol that makes `symbols` a valid code (Luhn mod 32), found by trying each.
    private func checkSymbol(_ symbols: String) -> Character {
        "0123456789ABCDEFGHJKMNPQRSTVWXYZ".first { (try? InvitationCode(parsing: symbols + String($0))) != nil } ?? "0"
    }
}
