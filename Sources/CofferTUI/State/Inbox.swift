import CofferCore
import Foundation

/// Where background work posts its results for the input loop to pick up (thread-safe).
final class Inbox: @unchecked Sendable {
    enum Message: Sendable {
        case event(ScreenEvent)
        /// A vault created on first run: the runtime keeps it.
        case vaultOpened(Vault)
        /// A control sequence for the terminal (the OSC 52 clear after a clipboard check).
        case send(String)
        /// An event of work on `vault`: dropped when the screen shows another vault by then.
        case vaultEvent(Vault, ScreenEvent)
        /// The picker's switch opened `vault`: the runtime keeps it (and locks the one before).
        case vaultSwitched(Vault, ScreenEvent)
        /// Passphrase keys an unlock returned: kept until the screen locks (`KeptPassphraseKeys`).
        case passphraseKeys(PassphraseKeys)
        /// A reload ended (its `.reloaded` was posted before): the next one may start.
        case reloadFinished
        /// `PRAGMA data_version` as just read (nil if it could not be read).
        case changeToken(Int?)
    }

    private let lock = NSLock()
    private var messages: [Message] = []
    /// Woken on every post: the loop waiting for a key takes the message at once.
    let wakePipe = WakePipe()

    func post(_ message: Message) {
        lock.lock()
        messages.append(message)
        lock.unlock()
        wakePipe.wake()
    }

    func post(_ event: ScreenEvent) { post(.event(event)) }

    func drain() -> [Message] {
        wakePipe.drain()
        lock.lock()
        defer { lock.unlock() }
        let drained = messages
        messages.removeAll()
        return drained
    }
}
