import Foundation
import GRDB

/// Files kept with items (architecture §2, §4): each added, read or removed in one transaction
/// with the item that names it, so an item never names a file this vault has not stored and a
/// removed file's bytes go with the reference.
extension Vault {
    /// Keeps `bytes` as a file of the item, named `name`; returns the item as saved.
    @discardableResult
    public func attach(_ bytes: Data, named name: String, to itemID: String) throws -> Item {
        guard bytes.count <= Attachment.sizeLimit else { throw CoreError.attachmentTooLarge(size: bytes.count) }
        // Sealed inside the retry too: a file keeps the key it was sealed with, never a retired one.
        return try reopeningIfStale {
            let session = try unlockedSession()
            let attachment = Attachment(name: name, bytes: bytes, added: now)
            let sealed = try AttachmentSealing.seal(bytes, item: itemID, attachment: attachment.id, ring: session.ring)
            let stored = VaultDatabase.StoredAttachment(id: attachment.id, sealed: sealed,
                                                        chunks: AttachmentSealing.chunkCount(of: sealed.count), state: .upload)
            return try rewriteOnce(itemID, crashLabel: "vault.attach") { item, db in
                item.attachments.append(attachment)
                try VaultDatabase.saveAttachment(stored, in: db)
            }
        }
    }

    /// Removes the file named (or with the id) `name` from the item: its bytes here at once, its
    /// chunks on the server at the next sync.
    @discardableResult
    public func detach(_ name: String, from itemID: String) throws -> Item {
        try rewrite(itemID, crashLabel: "vault.detach") { item, db in
            guard let index = Self.index(of: name, in: item) else {
                throw CoreError.noSuchAttachment(name: name, title: item.title)
            }
            let removed = item.attachments.remove(at: index)
            try VaultDatabase.markAttachmentRemoved(removed.id, in: db)
        }
    }

    /// The bytes of the item's file named (or with the id) `name`, checked against the item.
    public func attachmentData(_ name: String, of item: Item) throws -> (Attachment, Data) {
        let session = try unlockedSession()
        guard let index = Self.index(of: name, in: item) else { throw CoreError.noSuchAttachment(name: name, title: item.title) }
        let attachment = item.attachments[index]
        let stored = try database.read { try VaultDatabase.storedAttachment(attachment.id, in: $0) }
        guard let sealed = stored?.sealed else { throw CoreError.attachmentNotHere(name: attachment.name) }
        return (attachment, try AttachmentSealing.open(sealed, item: item.id, attachment: attachment, ring: session.ring))
    }

    /// The ids of the files whose bytes are here, so `attachmentData` can open them; a file an item
    /// names that is not among them has not arrived from the server yet (the screen says so).
    public func arrivedAttachmentIDs() throws -> Set<String> {
        try database.read { try VaultDatabase.arrivedAttachmentIDs(in: $0) }
    }

    /// Settles the files whose chunks the server deleted (`loose`), with the keys: one an item
    /// still names goes up again (the server lost it, or lied); one no item names is dropped.
    /// Returns how many went back up. Opens every item only when there is a loose file.
    @discardableResult
    public func settleLooseAttachments() throws -> Int {
        _ = try unlockedSession()
        let loose = try database.read { try VaultDatabase.attachmentIDs(in: .loose, in: $0) }
        guard !loose.isEmpty else { return 0 }
        var named = Set<String>()
        for listed in try listItems() { named.formUnion(listed.item?.attachments.map(\.id) ?? []) }
        try database.write { db in
            for id in loose {
                if named.contains(id) {
                    try VaultDatabase.setAttachmentState(id, .upload, in: db)
                } else {
                    try VaultDatabase.forgetAttachment(id, in: db)
                }
            }
        }
        return loose.filter(named.contains).count
    }

    /// A name given on the command line: an id, else an exact name, else a name ignoring case.
    static func index(of name: String, in item: Item) -> Int? {
        item.attachments.firstIndex { $0.id == name } ?? item.attachments.firstIndex { $0.name == name }
            ?? item.attachments.firstIndex { $0.name.lowercased() == name.lowercased() }
    }

    /// Changes the stored item with `change` in one IMMEDIATE transaction and records it as a
    /// local change, sealed on top of the server version stable holds.
    private func rewrite(_ itemID: String, crashLabel: String,
                         _ change: (inout Item, Database) throws -> Void) throws -> Item {
        try reopeningIfStale { try rewriteOnce(itemID, crashLabel: crashLabel, change) }
    }

    private func rewriteOnce(_ itemID: String, crashLabel: String,
                             _ change: (inout Item, Database) throws -> Void) throws -> Item {
        let session = try unlockedSession()
        if !session.ring.contains(itemID) { try refreshRing(session) }
        let (now, revisionTime) = writeTimes
        CrashPoint.reach("\(crashLabel).before-write")
        let saved = try database.write { db -> Item in
            guard let stored = try VaultDatabase.currentItem(itemID, in: db) else { throw CoreError.noSuchItem(id: itemID) }
            var item = try ItemSealing.open(stored.record, ring: session.ring)
            try change(&item, db)
            item.modified = max(now, item.created)
            try ItemValidation.validate(item)
            let stableBase = try VaultDatabase.stableItem(itemID, in: db)?.encrypted
            try VaultDatabase.recordLocalChange(try session.seal(item, lineage: .following(stableBase, now: revisionTime)), in: db)
            CrashPoint.reach("\(crashLabel).inside-write")
            return item
        }
        CrashPoint.reach("\(crashLabel).after-write")
        return saved
    }
}
