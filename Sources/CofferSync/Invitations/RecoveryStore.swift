import CofferCore
import Foundation

/// Where a recovery kit's payload waits (`RecoveryKit`): the default bucket of an account of its
/// own, named and opened by the kit's code, holding one record sealed under the code's key.
public enum RecoveryStore {
    static let collection = "recovery"
    static let recordID = "kit"

    /// Makes the kit's account and writes its sealed payload.
    public static func publish(_ sealed: String, keys: RecoveryKeys, server: URL) async throws {
        try await KintoClient.createAccount(server: server, user: keys.accountName, password: keys.accountPassword)
        _ = try await client(server, user: keys.accountName, password: keys.accountPassword)
            .putRecord(in: collection, id: recordID, data: ["sealed": sealed], onlyIfNew: false)
    }

    /// The sealed payload, or nil when the server knows no such kit (never made there, or voided).
    public static func fetch(keys: RecoveryKeys, server: URL) async throws -> String? {
        do {
            return try await client(server, user: keys.accountName, password: keys.accountPassword)
                .record(in: collection, id: recordID)?.fields["sealed"]
        } catch KintoError.unauthorized {
            return nil
        }
    }

    /// Voids a kit: its record and its account go.
    public static func remove(user: String, password: String, server: URL) async throws {
        try await client(server, user: user, password: password).deleteAccountAndData(user: user, doing: "voiding the old recovery kit")
    }

    static func client(_ server: URL, user: String, password: String) -> KintoClient {
        KintoClient(server: server, credentials: KintoCredentials(user: user, password: password))
    }
}
