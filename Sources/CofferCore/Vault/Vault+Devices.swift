import Crypto
import Foundation

/// This vault as a device (architecture §9): its key pair, its sealed record, and the messages it seals
/// and opens. Everything here needs the vault unlocked; the private key exists only while it is.
extension Vault {
    public nonisolated func deviceID() throws -> String {
        guard let id = try database.meta(.deviceID) else {
            throw CoreError.notAVault(path: database.path, reason: "it has no device id")
        }
        return id
    }

    public nonisolated func deviceName() throws -> String {
        try database.meta(.deviceName) ?? Vault.defaultDeviceName
    }

    /// Renames this device; the next unlocked sync publishes the new name.
    public nonisolated func renameDevice(to name: String) throws {
        try database.syncWrite { try $0.setMeta([.deviceName: name, .deviceRegistered: nil]) }
    }

    /// This device's private key, made and stored (sealed) on first use. Made inside the write
    /// that stores it, so two processes unlocking at once end with one key.
    func devicePrivateKey() throws -> Curve25519.KeyAgreement.PrivateKey {
        let session = try unlockedSession()
        let id = try deviceID()
        return try database.syncWrite { store in
            if let sealed = try store.meta(.deviceKey) {
                return try DeviceSealing.openPrivateKey(sealed, deviceID: id, vaultKey: session.deviceRoot)
            }
            let key = Curve25519.KeyAgreement.PrivateKey()
            try store.setMeta([.deviceKey: try DeviceSealing.sealPrivateKey(key, deviceID: id, vaultKey: session.deviceRoot)])
            return key
        }
    }

    /// The record this device publishes: its public key, and its name sealed for the account's devices.
    public func ownDeviceRecord() throws -> DeviceRecord {
        let key = try devicePrivateKey()
        return try DeviceSealing.record(id: try deviceID(), name: try deviceName(), publicKey: key.publicKey,
                                        vaultKey: try unlockedSession().deviceRoot)
    }

    /// The registry as this device sees it: each record checked against the vault key.
    public func knownDevices(_ records: [DeviceRecord]) throws -> [KnownDevice] {
        let vaultKey = try unlockedSession().deviceRoot
        let current = try deviceID()
        return records.map { record in
            KnownDevice(id: record.id, name: DeviceSealing.verifiedName(of: record, vaultKey: vaultKey),
                        publicKey: record.publicKey, capabilities: record.capabilities,
                        lastSeen: Timestamp(milliseconds: record.lastModified ?? 0), isCurrent: record.id == current)
        }
    }

    /// Seals `content` to a verified device; refuses an unverified one.
    public func sealMessage(_ content: MessageContent, to recipient: DeviceRecord) throws -> MessageRecord {
        let vaultKey = try unlockedSession().deviceRoot
        guard DeviceSealing.verifiedName(of: recipient, vaultKey: vaultKey) != nil else {
            throw CoreError.deviceMessage(reason: "device \(recipient.id) is unverified")
        }
        return try DeviceSealing.sealMessage(content, id: UUID().uuidString.lowercased(), to: recipient,
                                             from: try deviceID(), senderKey: try devicePrivateKey(), vaultKey: vaultKey)
    }

    /// Opens a message to this device from `sender`, which must be verified; `tampered` otherwise.
    public func openMessage(_ record: MessageRecord, from sender: DeviceRecord) throws -> MessageContent {
        let vaultKey = try unlockedSession().deviceRoot
        guard record.recipient == (try deviceID()), DeviceSealing.verifiedName(of: sender, vaultKey: vaultKey) != nil else {
            throw CoreError.tampered(what: "message \(record.id)")
        }
        return try DeviceSealing.openMessage(record, with: try devicePrivateKey(), from: sender, vaultKey: vaultKey)
    }
}
