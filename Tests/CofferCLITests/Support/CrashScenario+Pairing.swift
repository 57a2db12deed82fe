import CofferCore
import CofferTestSupport
import Foundation
import GRDB
import XCTest

// The `pair.*` crash points: an invitation (`device invite` on the crasher, `join --code` on a
// new device C) dies half-way. Nothing of the invitation may stay on the server once the crasher
// synced, and the new device is left with no vault rather than half of one.
extension CrashScenario {
    /// Long enough for a slow machine, short enough that nothing waits on it.
    static let invitationSeconds = "300"

    func crashWhilePairing(_ crasher: CrashDevice) throws {
        if point.hasPrefix("pair.host.") {
            try crashInviter(crasher)
        } else {
            try crashClaimant(invitedBy: crasher)
        }
    }

    /// The inviter dies before anyone claims: its vault must name the rendezvous it opened, so
    /// the next sync can remove it.
    private func crashInviter(_ crasher: CrashDevice) throws {
        let result = try crasher.run(["device", "invite", "--valid-seconds", Self.invitationSeconds], crash: point)
        try expectCrash(result, on: crasher)
        guard let remembered = try pendingInvitation(crasher) else {
            problems.append("after a crash at \(point) \(crasher.name)'s vault does not remember the rendezvous it opened: "
                + "nothing will remove it from the server")
            outcome = "a rendezvous nobody knows"
            return
        }
        rendezvous = remembered
        outcome = "the rendezvous is remembered (server answers \(try rendezvousStatus(remembered)))"
    }

    /// The claimant dies (once its claim and its reveal are written, or after its person said yes
    /// and it read the answer); the inviter, which stays alive, is answered y or n by the seed and
    /// must end cleanly.
    private func crashClaimant(invitedBy inviter: CrashDevice) throws {
        let newDevice = try CrashDevice(name: "C", in: directory, passphraseFiles: inviter.passphraseFiles, log: log)
        let binary = try CrashBinary.path()
        let host = try RunningCoffer(["--vault", inviter.path, "device", "invite", "--valid-seconds", Self.invitationSeconds],
                                     home: inviter.root, binary: binary, environment: ["XDG_RUNTIME_DIR": inviter.root.path])
        guard host.waitFor("Waiting for it"),
              let range = host.err.range(of: #"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{3}"#, options: .regularExpression) else {
            throw HarnessError("device invite on \(inviter.name) printed no code: \(host.finish().summary)")
        }
        let code = String(host.err[range])
        let keys = try RendezvousKeys(code: InvitationCode(parsing: code))
        rendezvous = (keys.accountName, keys.accountPassword)
        let guest = try RunningCoffer(["--vault", newDevice.path, "--passphrase-file", inviter.passphraseFiles[inviter.passphrase],
                                       "join", "--server", server.absoluteString, "--code", code, "--name", "new device"],
                                      home: newDevice.root, binary: binary,
                                      environment: [CrashPoint.environmentVariable: point, "XDG_RUNTIME_DIR": newDevice.root.path])
        let allow = point == "pair.guest.after-answer" || random.bool()
        if host.waitFor("wants to join") { host.answer(allow ? "y" : "n") }
        // The claimant dies before its own question, except after the answer: that one is asked
        // first, and its person sees the same number.
        if point == "pair.guest.after-answer", guest.waitFor("does the other device show this number?") { guest.answer("y") }
        let joined = guest.finish(timeout: 120)
        let hosted = host.finish(timeout: 120)
        log.record(device: "C", joined, crash: point)
        log.record(device: inviter.name, hosted, crash: nil)
        try expectCrash(joined, on: newDevice)
        if hosted.status != 0 { problems.append("the inviter did not end cleanly after the claimant died: \(hosted.summary)") }
        if FileManager.default.fileExists(atPath: newDevice.path) {
            problems.append("the claimant died before it made its vault, yet a file is at its path")
        }
        outcome = "the claimant dies, the inviter \(allow ? "allowed" : "declined")"
    }

    /// After recovery: the rendezvous account is gone and the crasher's vault forgot it.
    func checkNothingOfTheInvitationLeft() throws {
        if let rendezvous {
            let status = try rendezvousStatus(rendezvous)
            if status != 401 { problems.append("the rendezvous \(rendezvous.user) is still on the server (it answers \(status))") }
        }
        if let left = try pendingInvitation(crasher) {
            problems.append("after recovery \(crasher.name) still remembers the rendezvous \(left.user)")
        }
    }

    /// `meta.pending_invitation` (`server user password expires pid`), as user and password.
    private func pendingInvitation(_ device: CrashDevice) throws -> (user: String, password: String)? {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: device.path, configuration: configuration)
        defer { try? queue.close() }
        let stored = try queue.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'pending_invitation'")
        }
        let parts = stored?.split(separator: " ").map(String.init) ?? []
        return parts.count == 5 ? (parts[1], parts[2]) : nil
    }

    private func rendezvousStatus(_ account: (user: String, password: String)) throws -> Int {
        try RendezvousProbe.status(server: server, user: account.user, password: account.password)
    }
}
