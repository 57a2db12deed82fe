import CofferCore
import Foundation

/// A shared vault's roster on the server (architecture §17): read (whole, or its changes) and verified, or
/// appended to one entry at a time.
public enum SharedRoster {
    /// Every entry the server holds, in the order of their records' positions.
    ///
    /// - Throws: `RosterRefusal.malformed` for a record that is not an entry, or a gap or an entry
    ///   whose record id is not its sequence number; a `KintoError` from the server.
    public static func served(by client: KintoClient, vault: String) async throws -> [RosterEntry] {
        try await servedWithMarker(by: client, vault: vault).entries
    }

    /// `served`, and the collection's ETag, the marker `changes(since:)` starts from.
    static func servedWithMarker(by client: KintoClient, vault: String) async throws -> (entries: [RosterEntry], marker: String?) {
        guard case .changes(let records, let etag) = try await client.listChanges(named: RosterRecord.collection, since: nil, pageSize: nil)
        else { return ([], nil) }
        return (try merge(records, into: [], vault: vault), etag)
    }

    /// The chain the server serves now, from the records changed since the stored chain's marker
    /// (`records`, a `_since` listing): an entry at a stored position must be the stored entry
    /// byte for byte (a permission rewrite restamps it unchanged), a deleted one is a rollback,
    /// and new entries must follow the stored ones without a gap.
    static func merge(_ records: [Data], into stored: [RosterEntry], vault: String) throws -> [RosterEntry] {
        guard records.count <= RosterChain.entryLimit else {
            throw RosterRefusal(vault: vault, reason: .malformed("it has more than \(RosterChain.entryLimit) entries."))
        }
        var byPosition: [Int: RosterEntry] = [:]
        for data in records {
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            guard let id = object?["id"] as? String, let position = RosterRecord.position(ofID: id) else {
                throw RosterRefusal(vault: vault, reason: .malformed("a record's id is not a position."))
            }
            if object?["deleted"] as? Bool == true {
                // A verified entry taken away is a rollback; one this device never took (a
                // refused forgery removed again) is nothing.
                guard position >= stored.count else {
                    throw RosterRefusal(vault: vault, reason: .discontinued(.rollback(verified: stored.count, served: position)))
                }
                continue
            }
            let record: RosterRecord
            do {
                record = try RosterRecord(json: data)
            } catch {
                throw RosterRefusal(vault: vault, reason: .malformed("record \(id): \(error)"))
            }
            // A raced removal keeps the sequence number it lost, one below its record's (`RosterVerifier`).
            guard record.entry.sequence == UInt64(position) || record.entry.sequence + 1 == UInt64(position) else {
                throw RosterRefusal(vault: vault, reason: .malformed("record \(id) holds entry \(record.entry.sequence)."))
            }
            if position < stored.count {
                guard stored[position].encoded == record.entry.encoded else {
                    throw RosterRefusal(vault: vault, reason: .discontinued(.fork(position: position)))
                }
            } else {
                byPosition[position] = record.entry
            }
        }
        return try stored + (stored.count..<stored.count + byPosition.count).map { position in
            guard let entry = byPosition[position] else {
                throw RosterRefusal(vault: vault, reason: .malformed("entry \(position) is missing."))
            }
            return entry
        }
    }

    /// The state `served` leads to, if it verifies from entry 0 for `vaultID` and continues the
    /// chain this device verified before (`stored`; empty the first time).
    public static func verify(_ served: [RosterEntry], vaultID: SharedVaultID, continuing stored: [RosterEntry],
                              vault: String) throws -> RosterState {
        let state: RosterState
        switch RosterChain.verify(entries: served, vaultID: vaultID) {
        case .success(let verified): state = verified
        case .failure(let problem): throw RosterRefusal(vault: vault, reason: .invalid(problem))
        }
        if let last = stored.last {
            let continuity = RosterHead(position: stored.count - 1, hash: last.hash).continuity(of: served)
            guard continuity == .continues else { throw RosterRefusal(vault: vault, reason: .discontinued(continuity)) }
        }
        return state
    }

    /// Writes `entry` as the record of its position, once: `false` when another member's entry
    /// took the position first (read the roster again and make the entry anew).
    /// `position` is the entry's sequence number except for a raced removal, which goes one after it.
    public static func append(_ entry: RosterEntry, at position: Int? = nil, with client: KintoClient) async throws -> Bool {
        // The record `RosterRecord.json` describes.
        let written = try await client.putRecord(in: RosterRecord.collection, id: RosterRecord.id(position: position ?? Int(entry.sequence)),
                                                 data: ["entry": entry.encoded.base64EncodedString()], onlyIfNew: true)
        return written != nil
    }

    /// Writes the epoch key sealed to `person` (`seals/EPOCH-PERSONID`, once).
    public static func writeSeal(_ epochKey: SecureBuffer, epoch: UInt64, to person: Person, in vaultID: SharedVaultID,
                                 with client: KintoClient) async throws {
        let sealed = try EpochSeal.seal(epochKey, epoch: epoch, to: person, in: vaultID)
        _ = try await client.putRecord(in: EpochSeal.collection, id: EpochSeal.id(epoch: epoch, personID: person.id),
                                       data: ["seal": sealed.base64EncodedString()], onlyIfNew: true)
    }

    /// Whether the server holds a seal of `epoch` for the person `personID`.
    public static func hasSeal(epoch: UInt64, personID: String, with client: KintoClient) async throws -> Bool {
        try await client.record(in: EpochSeal.collection, id: EpochSeal.id(epoch: epoch, personID: personID)) != nil
    }

    /// The key of `state`'s epoch sealed to the person of `keys`, checked against the roster's
    /// commitment, or nil when the server holds no seal for them.
    public static func openSeal(for state: RosterState, with keys: PersonKeys, client: KintoClient, vault: String) async throws -> SecureBuffer? {
        try await openSeal(epoch: state.epoch, committedTo: state.epochCommitment, in: state.vaultID, with: keys, client: client, vault: vault)
    }

    /// The key of `epoch` sealed to the person of `keys`, checked against `commitment` (that of
    /// the roster entry that began the epoch), or nil when the server holds no seal for them.
    public static func openSeal(epoch: UInt64, committedTo commitment: Data, in vaultID: SharedVaultID, with keys: PersonKeys,
                                client: KintoClient, vault: String) async throws -> SecureBuffer? {
        guard let record = try await client.record(in: EpochSeal.collection, id: EpochSeal.id(epoch: epoch, personID: keys.id)),
              let text = record.fields["seal"], text.utf8.count <= 256 else { return nil }
        guard let sealed = Data(base64Encoded: text) else { throw EpochSeal.Problem.unreadable }
        let key = try EpochSeal.open(sealed, epoch: epoch, in: vaultID, with: keys)
        guard EpochCommitment.matches(commitment, epoch: epoch, key: key) else {
            throw RosterRefusal(vault: vault, reason: .malformed("the key sealed to you is not the one the roster committed to."))
        }
        return key
    }

    /// The collections of a shared bucket: Kinto makes them on the first write only in `default`.
    public static let collections = [CollectionName.items.rawValue, CollectionName.keystores.rawValue, "attachments",
                                     RosterRecord.collection, EpochSeal.collection]

    /// After a removal: every account's own `write` taken off every record and off the group
    /// (Kinto gives it to whoever writes), keeping only the group's access through the bucket.
    /// Kinto gives it back to whoever rewrites, so only a member who stays can do it: a person
    /// leaving leaves it to the next member device that sees the roster (`RosterStep`).
    /// The records rewritten, and those that could not be. Of the items only `items`: those whose
    /// last version no member who stays signed (`Vault.itemIDs(signedByNoneOf:)`) — every other
    /// item record carries a member's `write` only, and rewriting it would stamp it anew, which
    /// makes every device fetch it again (a revocation in O(items), issue 42).
    public static func clearAuthorPermissions(with client: KintoClient, items: [String]) async throws -> (rewritten: Int, failed: Int) {
        var rewritten = 0
        var failed = 0
        for collection in collections {
            let ids = collection == CollectionName.items.rawValue ? items : try await client.recordIDs(collection: collection)
            let refused = try await client.clearPermissions(collection: collection, ids: ids)
            rewritten += ids.count - refused.count
            failed += refused.count
        }
        try await client.clearGroupPermissions()
        return (rewritten, failed)
    }

    /// Records that the permissions were rewritten after the removal at `position`
    /// (`seals/rewritten-POSITION`), so the members who see that removal later need not rewrite
    /// every record again (each rewrite makes every device fetch every record anew).
    public static func markRewritten(after position: Int, with client: KintoClient) async throws {
        _ = try await client.putRecord(in: EpochSeal.collection, id: rewrittenID(position), data: ["done": "1"], onlyIfNew: true)
    }

    public static func isRewritten(after position: Int, with client: KintoClient) async throws -> Bool {
        try await client.record(in: EpochSeal.collection, id: rewrittenID(position)) != nil
    }

    static func rewrittenID(_ position: Int) -> String { "rewritten-\(RosterRecord.id(position: position))" }

    /// Takes `account` out of the bucket's members' group (the same retry as `admit`).
    public static func dismiss(account: String, with client: KintoClient) async throws {
        try await changeGroup(with: client) { principals in
            principals.contains("account:\(account)") ? principals.filter { $0 != "account:\(account)" } : nil
        }
    }

    /// Adds `account` to the bucket's members' group (the same retry).
    public static func admit(account: String, with client: KintoClient) async throws {
        try await changeGroup(with: client) { principals in
            principals.contains("account:\(account)") ? nil : principals + ["account:\(account)"]
        }
    }

    /// Replaces the members' group with what `change` makes of it (nil: nothing to change), read
    /// again when another member changed it meanwhile (`setMembers` is conditional).
    private static func changeGroup(with client: KintoClient, _ change: ([String]) -> [String]?) async throws {
        for _ in 0..<10 {
            let (principals, lastModified) = try await client.members()
            guard let changed = change(principals) else { return }
            if try await client.setMembers(changed, ifUnchangedSince: lastModified) { return }
        }
        throw KintoError.network(message: "The members' group kept changing; try again.")
    }
}
