import Crypto
import Foundation

/// Where a sealed record comes from: its revision (one more than the version it was made from)
/// and a digest of that version's sealed bytes.
///
/// It travels in the clear at the front of a version-2 envelope and is part of the associated
/// data, so a device can read it while locked and nobody can change it without the envelope
/// failing to open. The revision lets a device refuse a server that serves an older version as
/// new (a rollback or a replay); the parent digest tells exactly whether another device's version
/// was made on top of ours (our push reached the server but its acknowledgement was lost).
public struct Lineage: Sendable, Equatable {
    public static let digestLength = 16
    static let encodedLength = 8 + digestLength

    public var revision: UInt64
    public var parent: Data

    public init(revision: UInt64, parent: Data) {
        precondition(parent.count == Lineage.digestLength)
        self.revision = revision
        self.parent = parent
    }

    /// The lineage of a version-1 envelope, or of a record sealed before lineages existed.
    public static let unknown = Lineage(revision: 0, parent: Data(count: digestLength))
    /// A first version: nothing came before it.
    public static var first: Lineage { following(nil) }

    /// The lineage of a new version made from `base` (base64 of its sealed bytes; nil for a new record).
    ///
    /// The revision is a hybrid clock: one more than the base's, and at least the time in
    /// milliseconds. Along one record's history on the server each version is made from the one
    /// before, so revisions grow whatever the clocks say; the time part only matters for an edit
    /// re-created over a deletion, which is not made from the newest version: it then still
    /// counts as newer than versions written before it.
    ///
    /// `outranking` is another version this one must count as newer than though it is not made
    /// from it: the newer version this device holds when `base` is an older one the server served
    /// (a rollback or replay). Without it, the result would be ordered against that version by the
    /// devices' clocks alone, which agree only to about a second.
    public static func following(_ base: String?, outranking other: String? = nil, now: Timestamp = .now()) -> Lineage {
        let time = UInt64(max(0, now.milliseconds))
        let floor = other.flatMap(of).map { $0.revision &+ 1 } ?? 0
        guard let base, let sealed = Data(base64Encoded: base) else {
            return Lineage(revision: max(1, time, floor), parent: Data(count: digestLength))
        }
        let revision = Envelope.lineage(of: sealed)?.revision ?? 0
        return Lineage(revision: max(revision &+ 1, time, floor), parent: digest(ofSealed: sealed))
    }

    /// The lineage of the record `base64` (nil when it is not an envelope).
    public static func of(_ base64: String) -> Lineage? {
        guard !base64.isEmpty else { return nil }
        // The lineage sits in the first 33 bytes: 44 base64 characters hold them.
        let head = base64.utf8.count > 48 ? String(base64.prefix(44)) : base64
        guard let bytes = Data(base64Encoded: head) else { return nil }
        return Envelope.lineage(of: bytes)
    }

    /// Whether record `a` (base64 of sealed bytes) has a lower revision than `b`: `a` is a version
    /// `b` was made after. False when either is no envelope (corrupt is not older).
    public static func isOlder(_ a: String, than b: String) -> Bool {
        guard let a = of(a), let b = of(b) else { return false }
        return a.revision < b.revision
    }

    /// Whether this version and `other` were both made from the same earlier version (not from
    /// nothing). Neither is then older than the other, whatever their revisions: on the server,
    /// where each push names the version it replaces, the later of two siblings can only be one
    /// made before and pushed over a deletion of the other (an edit made offline, re-creating an
    /// item another device edited and then removed). Its revision is its maker's clock at the
    /// edit, which can be earlier than the deleted sibling's.
    public func isSibling(of other: Lineage) -> Bool {
        revision > 0 && other.revision > 0 && parent == other.parent && parent != Lineage.unknown.parent
    }

    /// Whether `record` (base64 of sealed bytes) is the version this lineage was made from.
    public func isMade(from record: String) -> Bool {
        guard revision > 0, let sealed = Data(base64Encoded: record) else { return false }
        return Lineage.digest(ofSealed: sealed) == parent
    }

    public static func digest(ofSealed sealed: Data) -> Data {
        Data(SHA256.hash(data: sealed).prefix(digestLength))
    }

    var encoded: Data {
        var bytes = Data(capacity: Lineage.encodedLength)
        withUnsafeBytes(of: revision.bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(parent)
        return bytes
    }

    init?(encoded bytes: Data) {
        guard bytes.count == Lineage.encodedLength else { return nil }
        let start = bytes.startIndex
        revision = bytes[start..<start + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        parent = Data(bytes[(start + 8)...])
    }
}
