import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The `XMLParser` delegate that fills a `KeePassXMLDocument`. Each open element gets a role from
/// its parent's role and its name (an element the import does not read, and everything inside
/// it, is `ignored`), so what an element means never depends on where a hostile file put it. It
/// keeps the text of the few elements the import reads and attachment data up to the size an
/// attachment may have (beyond that it only counts it), and stops the parser at the first limit
/// crossed, naming it in `refusal`.
final class KeePassXMLReader: NSObject, XMLParserDelegate {
    private(set) var document = KeePassXMLDocument()
    /// Set when the reader stopped the parser: the sentence the file is refused with.
    private(set) var refusal: KeePassXMLDocument.Refusal?
    /// The line and libxml2 code of the parser's first error.
    private(set) var parseError: (line: Int, code: Int)?
    private(set) var sawRoot = false
    /// The texts of `Meta/Binaries` taken out of the file before parsing (`KeePassXMLDocument.lifted`).
    private let lifted: [KeePassXMLDocument.Base64Text]
    /// A KDBX file's inner stream: each `Protected="True"` value, in document order, is base64 of
    /// its text XORed with the stream's next bytes (nil: a plain XML export, which has none).
    private let innerStream: KDBXInnerStream?

    init(lifted: [KeePassXMLDocument.Base64Text], binaries: [String: KeePassXMLDocument.Binary] = [:], innerStream: KDBXInnerStream? = nil) {
        self.lifted = lifted
        self.innerStream = innerStream
        super.init()
        document.binaries = binaries
    }

    private enum Role: Equatable {
        case file, meta, recycleBinUUID, binaries, binaryData
        case root, group, groupUUID, groupName
        /// An entry: the current version, or a past one inside its `History`.
        case entry, history
        case string, stringKey, stringValue
        case attachment, attachmentKey, attachmentValue
        case times, time(String), tags, overrideURL
        case autoType, autoTypeSequence, association, associationWindow, associationSequence
        case ignored

        /// Whether the element's text is kept.
        var keepsText: Bool {
            switch self {
            case .recycleBinUUID, .groupUUID, .groupName, .stringKey, .stringValue, .attachmentKey, .time, .tags, .overrideURL,
                 .autoTypeSequence, .associationWindow, .associationSequence:
                return true
            default: return false
            }
        }
    }

    /// The roles of the open elements, outermost first.
    private var roles: [Role] = []
    /// The open groups (indexes into `document.groups`), outermost first.
    private var groups: [Int] = []
    /// The entry being read, then the past version being read inside it.
    private var versions: [KeePassXMLDocument.Version] = []
    private var entryGroup = 0
    /// The text of the open element whose text is kept.
    private var text: String?
    /// The attachment data being read.
    private var base64: KeePassXMLDocument.Base64Text?
    private var binaryID = ""
    private var binaryIsCompressed = false
    private var key = ""
    private var value = ""
    private var valueIsProtected = false
    private var reference: String?
    private var inline: KeePassXMLDocument.Binary?
    private var window = ""
    private var sequence = ""
    /// The base64 text of the open protected element (not an attachment's data, read as `base64`).
    private var protectedText: String?
    private var binaryIsProtected = false

    private func stop(_ parser: XMLParser, _ reason: String) {
        if refusal == nil { refusal = KeePassXMLDocument.Refusal(reason) }
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        guard refusal == nil else { return }
        guard roles.count < KeePassXMLDocument.depthLimit else {
            return stop(parser, "nests elements more than \(KeePassXMLDocument.depthLimit) deep")
        }
        guard let parent = roles.last else {
            guard name == "KeePassFile" else {
                return stop(parser, "is not a KeePass XML export: its first element is <\(name.prefix(40))>, not <KeePassFile>")
            }
            sawRoot = true
            roles.append(.file)
            return
        }
        let role = self.role(of: name, in: parent)
        roles.append(role)
        if role.keepsText { text = "" }
        // Every protected element takes its share of the inner stream, read or not, so the ones
        // after it line up with theirs.
        let isProtected = attributes["Protected"]?.lowercased() == "true"
        if isProtected && innerStream != nil && role != .binaryData { protectedText = "" }
        switch role {
        case .binaryData:
            binaryID = attributes["ID"] ?? ""
            binaryIsCompressed = attributes["Compressed"]?.lowercased() == "true"
            binaryIsProtected = isProtected && innerStream != nil
            // A lifted text was whole base64: the element now has no text of its own.
            let index = attributes["coffer-lifted"].flatMap { Int($0) }
            base64 = index.flatMap { lifted.indices.contains($0) ? lifted[$0] : nil } ?? KeePassXMLDocument.Base64Text()
        case .group:
            guard document.groups.count < KeePassXMLDocument.groupLimit else {
                return stop(parser, "has more than \(KeePassXMLDocument.groupLimit) groups")
            }
            document.groups.append(KeePassXMLDocument.Group(parent: groups.last))
            groups.append(document.groups.count - 1)
        case .entry where versions.isEmpty:
            guard document.entries.count < KeePassXMLDocument.entryLimit else {
                return stop(parser, "has more than \(KeePassXMLDocument.entryLimit) entries")
            }
            entryGroup = groups.last ?? 0
            versions = [KeePassXMLDocument.Version()]
        case .entry:
            versions.append(KeePassXMLDocument.Version())
        case .string:
            guard versions[versions.count - 1].strings.count < KeePassXMLDocument.stringLimit else {
                return stop(parser, "has an entry with more than \(KeePassXMLDocument.stringLimit) fields")
            }
            (key, value, valueIsProtected) = ("", "", false)
        case .stringValue:
            if isProtected && innerStream == nil {
                return stop(parser, "holds encrypted values (Protected=\"True\"); export the database with keepassxc-cli export --format xml")
            }
            // A KDBX file marks a protected value `Protected`; its XML export, `ProtectInMemory`.
            valueIsProtected = isProtected || attributes["ProtectInMemory"]?.lowercased() == "true"
        case .attachment:
            (key, reference, inline) = ("", nil, nil)
        case .attachmentValue:
            reference = attributes["Ref"]
            if reference == nil { base64 = KeePassXMLDocument.Base64Text() }
        case .association:
            (window, sequence) = ("", "")
        default: break
        }
    }

    /// What an element named `name` is inside one whose role is `parent`.
    private func role(of name: String, in parent: Role) -> Role {
        switch (parent, name) {
        case (.file, "Meta"): return .meta
        case (.file, "Root"): return .root
        case (.meta, "RecycleBinUUID"): return .recycleBinUUID
        case (.meta, "Binaries"): return .binaries
        case (.binaries, "Binary"): return .binaryData
        case (.root, "Group"), (.group, "Group"): return .group
        case (.group, "UUID"): return .groupUUID
        case (.group, "Name"): return .groupName
        case (.group, "Entry"): return .entry
        // History is read from the current version only: a past version's own history is not KeePass's.
        case (.entry, "History") where versions.count == 1: return .history
        case (.history, "Entry"): return .entry
        case (.entry, "String"): return .string
        case (.string, "Key"): return .stringKey
        case (.string, "Value"): return .stringValue
        case (.entry, "Binary"): return .attachment
        case (.attachment, "Key"): return .attachmentKey
        case (.attachment, "Value"): return .attachmentValue
        case (.entry, "Times"): return .times
        case (.times, _): return .time(name)
        case (.entry, "Tags"): return .tags
        case (.entry, "OverrideURL"): return .overrideURL
        case (.entry, "AutoType"): return .autoType
        case (.autoType, "DefaultSequence"): return .autoTypeSequence
        case (.autoType, "Association"): return .association
        case (.association, "Window"): return .associationWindow
        case (.association, "KeystrokeSequence"): return .associationSequence
        default: return .ignored
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if protectedText != nil {
            protectedText?.append(string)
        } else if text != nil {
            text?.append(string)
        } else {
            base64?.append(string)
        }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        self.parser(parser, foundCharacters: String(decoding: block, as: UTF8.self))
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard refusal == nil, let role = roles.popLast() else { return }
        var content = ""
        if role.keepsText {
            content = text ?? ""
            text = nil
        }
        if let hidden = protectedText, let innerStream {
            protectedText = nil
            content = String(decoding: innerStream.reveal(Array(Data(base64Encoded: hidden.filter { !$0.isWhitespace }) ?? Data())),
                             as: UTF8.self)
        }
        let last = versions.count - 1
        switch role {
        case .recycleBinUUID: document.recycleBinUUID = content.trimmingCharacters(in: .whitespacesAndNewlines)
        case .binaryData:
            var data = base64 ?? .init()
            if binaryIsProtected, let innerStream {
                // KDBX 3.1 may protect an attachment too: its bytes are revealed, then read as any other.
                let revealed = innerStream.reveal(Array(Data(base64Encoded: data.text) ?? Data()))
                let text = Array(Data(revealed).base64EncodedString().utf8)
                data = text.withUnsafeBufferPointer { KeePassXMLDocument.Base64Text(ascii: $0) }
            }
            document.binaries[binaryID] = KeePassXMLDocument.Binary(data, isCompressed: binaryIsCompressed)
            base64 = nil
        case .group: groups.removeLast()
        case .groupUUID: document.groups[groups[groups.count - 1]].uuid = content.trimmingCharacters(in: .whitespacesAndNewlines)
        case .groupName: document.groups[groups[groups.count - 1]].name = content
        case .entry where versions.count == 1:
            document.entries.append(.init(group: entryGroup, current: versions[0]))
            versions = []
        case .entry:
            let past = versions.removeLast()
            versions[last - 1].history.append(past)
            if versions[last - 1].history.count > Item.historyLimit { versions[last - 1].history.removeFirst() }
        case .stringKey, .attachmentKey: key = content
        case .stringValue: value = content
        case .string: versions[last].strings.append((key, value, valueIsProtected))
        case .attachmentValue:
            if let text = base64 { inline = KeePassXMLDocument.Binary(text, isCompressed: false) }
            base64 = nil
        case .attachment: versions[last].attachments.append((key, reference, inline))
        case .time(let member): versions[last].times[member] = content.trimmingCharacters(in: .whitespacesAndNewlines)
        case .tags: versions[last].tags = content
        case .overrideURL: versions[last].overrideURL = content
        case .autoTypeSequence: versions[last].autoTypeSequence = content
        case .associationWindow: window = content
        case .associationSequence: sequence = content
        case .association: versions[last].autoTypeAssociations.append((window, sequence))
        default: break
        }
    }

    /// The first error stops the parse: Foundation's parser recovers and goes on, which a refused
    /// file does not need.
    func parser(_ parser: XMLParser, parseErrorOccurred error: Error) {
        guard parseError == nil else { return }
        parseError = (parser.lineNumber, (error as NSError).code)
        parser.abortParsing()
    }
}
