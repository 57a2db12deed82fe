import Foundation

/// An SSH key as a vault item of kind `ssh-key`: the key file is the secret; the public key line,
/// fingerprint and comment are written from it, so they always describe the key that signs.
extension SSHKey {
    /// A new item titled `title` holding this key.
    public func item(titled title: String, at now: Timestamp = .now()) -> Item {
        var item = Item(title: title, entry: Entry(kind: ItemKind.sshKey.name), created: now)
        store(in: &item.entry)
        return item
    }

    /// Writes this key's fields into `entry`.
    public func store(in entry: inout Entry) {
        entry.kind = ItemKind.sshKey.name
        entry.fields["private_key"] = OpenSSHKeyFile.text(of: self)
        entry.fields["public_key"] = authorizedKey
        entry.fields["fingerprint"] = fingerprint
        entry.fields["comment"] = comment
    }

    /// The key an `ssh-key` item holds; nil for another kind or an item without a private key.
    public init?(item: Item) throws(SSHKeyError) {
        guard item.entry.kind == ItemKind.sshKey.name, let text = item.entry.fields["private_key"], !text.isEmpty else {
            return nil
        }
        self = try OpenSSHKeyFile.read(text)
    }
}
