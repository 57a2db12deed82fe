import CofferCore
import Foundation

/// A vault key as the agent offers it: the key, the comment shown, and the item's rules for it.
struct SSHOfferedKey: Sendable {
    var key: SSHKey
    var title: String
    /// known_hosts names it is limited to; empty: any host.
    var hosts: [String]
    /// Ask through $SSH_ASKPASS before each signature.
    var confirms: Bool

    /// The key an `ssh-key` item holds, with its rules; nil when it has none that reads.
    init?(item: Item) {
        guard var key = try? SSHKey(item: item) else { return nil }
        if key.comment.isEmpty { key.comment = item.title }
        self.key = key
        title = item.title
        hosts = (item.entry.fields["hosts"] ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        // Failing safe: `y`, `on` or any text an older screen took but `no`, `false`… asks.
        confirms = FlagValue.isOn(item.entry.fields["confirm"])
    }
}
