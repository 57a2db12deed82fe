import CofferCore
import Foundation

/// A rendezvous an inviter opened, remembered in `meta` until it is removed: if the inviter dies
/// (kill -9, a closed terminal), the next `coffer` run that syncs or invites removes it — once the
/// inviter's process is gone or the invitation has expired, never while it still waits.
public struct InvitationLeftover: Sendable, Equatable {
    public var server: URL
    public var user: String
    public var password: String
    /// Kept in milliseconds, as stored: a `Date` (a double of seconds) does not give every
    /// millisecond back (1732672406 ms came back as …405), and the text must survive a round trip.
    var expiry: Timestamp
    public var expires: Date { expiry.date }
    /// The inviting process.
    public var process: Int32

    /// `server user password expires pid` (none holds a space: a URL, `rv-` + hex, base64, numbers).
    package var stored: String {
        "\(server.absoluteString) \(user) \(password) \(expiry.milliseconds) \(process)"
    }

    package init(server: URL, user: String, password: String, expires: Date, process: Int32 = getpid()) {
        self.init(server: server, user: user, password: password, expiry: Timestamp(expires), process: process)
    }

    private init(server: URL, user: String, password: String, expiry: Timestamp, process: Int32) {
        self.server = server
        self.user = user
        self.password = password
        self.expiry = expiry
        self.process = process
    }

    package init?(stored: String) {
        let parts = stored.split(separator: " ")
        guard parts.count == 5, let server = URL(string: String(parts[0])), let expires = Int64(parts[3]),
              let process = Int32(parts[4]) else { return nil }
        self.init(server: server, user: String(parts[1]), password: String(parts[2]),
                  expiry: Timestamp(milliseconds: expires), process: process)
    }

    /// Whether the inviter may still be waiting on it.
    package var isLive: Bool {
        Date() < expires && process != getpid() && (kill(process, 0) == 0 || errno == EPERM)
    }

    public func remember(in database: VaultDatabase) throws {
        try database.syncWrite { try $0.setMeta([.pendingInvitation: stored]) }
    }

    public static func forget(in database: VaultDatabase) throws {
        try database.syncWrite { try $0.setMeta([.pendingInvitation: nil]) }
    }

    /// Removes a rendezvous a crashed inviter left on the server, if any. Best effort: a server
    /// that cannot be reached now is tried again next time.
    public static func removeLeftover(of database: VaultDatabase) async {
        guard let text = try? database.meta(.pendingInvitation) else { return }
        guard let leftover = InvitationLeftover(stored: text) else {
            try? forget(in: database)
            return
        }
        guard !leftover.isLive else { return }
        let client = KintoClient(server: leftover.server, credentials: KintoCredentials(user: leftover.user, password: leftover.password),
                                 timeout: 10)
        do {
            try await client.deleteAccountAndData(user: leftover.user)
            try forget(in: database)
        } catch KintoError.unauthorized {
            try? forget(in: database)  // already gone (its claimant removed it)
        } catch {
            return
        }
    }
}
