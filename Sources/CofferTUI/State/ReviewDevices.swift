import CofferCore

/// Who made the other side of a merged field, as the review names it: this device (another
/// process, such as `coffer edit`, saved it), a device of the registry by its verified name, or
/// "another device" when the registry does not know it.
///
/// The review said "other device" for every remote side, also for an edit made on this machine.
/// Field times carry the device id that made each change (`FieldStamp.by`); the registry this
/// device keeps holds the names. In a shared vault the server's version names the person who
/// signed it (`ItemReview.remoteSigner`), and the roster their name: a member's devices are not in
/// this account's registry.
public struct ReviewDevices: Sendable, Equatable {
    /// This device's id (`meta.device_id`).
    var currentID: String
    /// Verified names by device id, as their records said them (sanitised when shown).
    var names: [String: String]
    /// In a shared vault, the current members' names by person id, from the verified roster.
    var members: [String: String] = [:]

    public init(currentID: String, names: [String: String], members: [String: String] = [:]) {
        self.currentID = currentID
        self.names = names
        self.members = members
    }

    /// The remote side's maker: the person who signed it in a shared vault, else the device of
    /// the field's stamp; nil without either (the merge did not know), so the caller keeps its
    /// generic words.
    func otherSide(_ stamp: FieldStamp?, signer: String? = nil) -> String? {
        if let signer {
            return members[signer].map { TerminalText.name($0, limit: 24) } ?? "a former member"
        }
        guard let stamp, !stamp.by.isEmpty else { return nil }
        if stamp.by == currentID { return "this device, another edit" }
        if let name = names[stamp.by] { return TerminalText.name(name, limit: 24) }
        return "another device"
    }
}

extension ReviewDevices {
    /// This vault's device id and the names of the devices its registry verified; nil when the
    /// vault has no device id (the review then keeps its generic words).
    public static func read(from vault: Vault) async -> ReviewDevices? {
        guard let current = try? vault.deviceID() else { return nil }
        let records = (try? vault.database.syncRead { try $0.deviceRecords() }) ?? []
        let known = (try? await vault.knownDevices(records)) ?? []
        var names: [String: String] = [:]
        for device in known { if let name = device.name { names[device.id] = name } }
        var members: [String: String] = [:]
        if let vaultID = vault.sharedVaultID, let entries = try? vault.verifiedRoster(),
           case .success(let state) = RosterChain.verify(entries: entries, vaultID: vaultID) {
            for (id, member) in state.members { members[id] = member.person.name }
        }
        return ReviewDevices(currentID: current, names: names, members: members)
    }
}
