import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

// The fault matrix's invitation steps: both sides of an invitation talk through the proxy, and
// one of their requests meets the fault. The exchange either hands over exactly the payload or
// stops with a named error; either way, once the inviter's vault removed its leftover (as the
// next sync does), nothing of the rendezvous is on the server, and a new invitation works.
extension SyncFaultTests {
    func runPairingScenario(_ kind: FaultProxy.Mode, at step: FaultStep, seed: Int) async throws {
        let scenario = "\(kind.rawValue) at the \(step.rawValue), seed \(seed)"
        let cell: URL = directory
        let inviter = try await Device.create("inviter", in: cell, server: server.url, credentials: credentials)
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        let invitationKind: InvitationKind = seed % 2 == 1 ? .device : .item
        let payload = Data(String(repeating: "payload of seed \(seed); ", count: 1 + 40 * (seed % 3)).utf8)

        let logBefore = try await proxy.log().count
        try await proxy.setFault(kind, count: 1, match: step.match(), seconds: FaultMatrix.seconds(for: kind))
        let outcome = await exchange(payload, kind: invitationKind, through: proxy.url, inviter: inviter)
        let faulted = try await proxy.log().dropFirst(logBefore).filter { $0.fault == kind.rawValue }
        XCTAssertEqual(faulted.count, 1, "\(scenario): the fault hit one request")
        try await proxy.setFault(.pass)
        switch outcome.result {
        case .success(let received):
            XCTAssertEqual(received, payload, "\(scenario): the claimant got something else")
        case .failure(let error):
            XCTAssertTrue(error is KintoError || error is InvitationError, "\(scenario): an unnamed error: \(error)")
        }
        if kind == .delay { try await Task.sleep(nanoseconds: 2_500_000_000) }

        // The next sync's clean-up (this process is not the inviter's any more once it gave up).
        if case .failure = outcome.result { await InvitationLeftover.removeLeftover(of: inviter.vault.database) }
        XCTAssertNil(try inviter.vault.database.meta(.pendingInvitation), "\(scenario): the leftover is remembered still")
        if let account = outcome.rendezvous {
            XCTAssertEqual(try rendezvousStatus(account), 401, "\(scenario): the rendezvous is still on the server")
        } else {
            XCTFail("\(scenario): the inviter never named its rendezvous")
        }

        // A new invitation, without the fault, goes through.
        let again = await exchange(payload, kind: invitationKind, through: proxy.url, inviter: inviter)
        XCTAssertEqual(try? again.result.get(), payload, "\(scenario): the invitation after the fault: \(again.result)")
    }

    private struct Exchange {
        var result: Result<Data, Error>
        /// The rendezvous account the inviter remembered, if it got that far.
        var rendezvous: (user: String, password: String)?
    }

    /// One invitation, each side's steps in turn (so each fault hits the step it names): open,
    /// claim, take the claim (the inviter's key), reveal, check the reveal, answer, read the
    /// answer; then the inviter closes.
    private func exchange(_ payload: Data, kind: InvitationKind, through url: URL, inviter: Device) async -> Exchange {
        var remembered: (user: String, password: String)?
        // The rendezvous the inviter remembered, read back however far it got.
        func readRemembered() {
            guard let text = try? inviter.vault.database.meta(.pendingInvitation),
                  let leftover = InvitationLeftover(stored: text) else { return }
            remembered = (leftover.user, leftover.password)
        }
        do {
            let host = try await InvitationHost.open(server: url, kind: kind, lifetime: 120,
                                                     rememberingIn: inviter.vault.database)
            readRemembered()
            let pending = try await InvitationGuest.sendClaim(server: url, code: host.code, kind: kind, name: "guest")
            let taken = try await host.takeClaim(polling: 0.2)
            let guest = try await pending.exchangeKeys(polling: 0.2)
            let claim = try await host.awaitReveal(of: taken, polling: 0.2)
            XCTAssertEqual(claim.agreement.confirmation, guest.confirmation, "both sides show the same number")
            try await host.answer(claim, allowing: payload)
            let received = try await guest.waitForAnswer(polling: 0.2)
            try await host.close(waiting: 10)
            try InvitationLeftover.forget(in: inviter.vault.database)
            return Exchange(result: .success(received), rendezvous: remembered)
        } catch {
            if remembered == nil { readRemembered() }  // the open itself failed, after remembering
            return Exchange(result: .failure(error), rendezvous: remembered)
        }
    }

    private func rendezvousStatus(_ account: (user: String, password: String)) throws -> Int {
        try RendezvousProbe.status(server: server.url, user: account.user, password: account.password)
    }
}
