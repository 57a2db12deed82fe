import CofferCore
import Foundation

/// The Kinto account a vault syncs with, kept in `meta` (unencrypted in the 0600 file: it opens
/// only ciphertext, and sync must run while the vault is locked).
public struct SyncAccount: Sendable, Equatable {
    public var server: URL
    public var user: String
    public var password: String
    /// The account's own bucket by its id, once a sync learned it (`MetaKey.accountBucket`).
    public var bucket: String?

    public init(server: URL, user: String, password: String, bucket: String? = nil) {
        self.server = server
        self.user = user
        self.password = password
        self.bucket = bucket
    }

    public var credentials: KintoCredentials { KintoCredentials(user: user, password: password) }

    public static func load(from database: VaultDatabase) throws -> SyncAccount? {
        guard let serverText = try database.meta(.accountServer), let server = URL(string: serverText),
              let user = try database.meta(.accountUser), let password = try database.meta(.accountPassword)
        else { return nil }
        return SyncAccount(server: server, user: user, password: password, bucket: try database.meta(.accountBucket))
    }

    public func save(to database: VaultDatabase) throws {
        try database.syncWrite { store in
            for (key, value) in meta { try store.setMeta([key: value]) }
            if bucket == nil { try store.setMeta([.accountBucket: nil]) }
        }
    }

    /// What `save` writes, also for a vault made with its account in one transaction (`Vault.join`).
    public var meta: [MetaKey: String] {
        var meta: [MetaKey: String] = [.accountServer: server.absoluteString, .accountUser: user, .accountPassword: password]
        meta[.accountBucket] = bucket
        return meta
    }

    /// Forgets the account, the markers and the sync state; local data and pending changes stay.
    public static func remove(from database: VaultDatabase) throws {
        try database.syncWrite(forget)
    }

    /// `remove`, inside a transaction another step opened (a `signout` message's effect).
    static func forget(in store: SyncStore) throws {
        try store.setMeta([.accountServer: nil, .accountUser: nil, .accountPassword: nil, .accountNextPassword: nil, .accountBucket: nil,
                           .lastSync: nil, .lastError: nil, .lastErrorMessage: nil, .backoffUntil: nil])
        try store.clearMarkers()
    }

    /// A server address as the user types it (`http://host:8888` or `…/v1`) with `/v1` at the end.
    public static func normalizedServer(_ text: String) -> URL? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        if !trimmed.hasSuffix("/v1") { trimmed += "/v1" }
        guard let url = URL(string: trimmed), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil
        else { return nil }
        return url
    }
}
