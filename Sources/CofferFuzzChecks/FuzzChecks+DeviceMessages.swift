import CofferCore
import Crypto
import Foundation

extension FuzzChecks {
    /// The device records and messages of architecture §9 as another device (or the server) may write
    /// them (`FuzzDeviceMessages`). The first byte picks the check, so each runs at its own speed
    /// (the HPKE ones cost two X25519 operations) and the fuzzer can specialise inputs per check:
    /// - 0: `MessageRecord` JSON: what decodes re-encodes to text that decodes equal, a fixed
    ///   point; and it opens for the fixed recipient only if it is the seed message's ids (HPKE
    ///   binds id, recipient and sender), else `tampered`;
    /// - 1: `DeviceRecord` JSON: round trip as above; verified only with a genuine box and key;
    /// - 2: `MessageContent` JSON (what a message seals): round trip;
    /// - 3: the rest as a message's data: sealing gives a message that opens to the same content,
    ///   no longer than `MessageContent.maximumBytes` (longer ones are refused), and that fails
    ///   with `tampered` after a bit flip, under another id, or from another sender (one of the
    ///   three an input).
    public static func deviceMessages(_ data: Data) throws {
        guard let selector = data.first else { return }
        let rest = data.dropFirst()
        switch selector % 4 {
        case 0: try messageRecord(Data(rest))
        case 1: try deviceRecord(Data(rest))
        case 2: try messageContent(Data(rest))
        default: try sealedMessage(Data(rest), topic: MessageTopic.allCases[Int(selector / 4) % MessageTopic.allCases.count])
        }
    }

    /// The two devices of the checks, with fixed keys so that a finding replays.
    enum FuzzDevices {
        static let sender = (try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(repeating: 0x11, count: 32)))
            ?? Curve25519.KeyAgreement.PrivateKey()
        static let recipient = (try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(repeating: 0x22, count: 32)))
            ?? Curve25519.KeyAgreement.PrivateKey()
        static let senderRecord = try? DeviceSealing.record(id: "device-sender", name: "sender", publicKey: sender.publicKey,
                                                            vaultKey: testKey)
        static let recipientRecord = try? DeviceSealing.record(id: "device-recipient", name: "recipient",
                                                               publicKey: recipient.publicKey, vaultKey: testKey)
        /// The id every sealed message of the checks (and of the seed corpus) carries.
        static let messageID = "message-fuzz"
        static let created = Timestamp(milliseconds: 1_767_225_600_000)
    }

    /// A device record, for the checks and for writing the seed corpus.
    public static func fuzzDeviceRecordJSON(recipient: Bool) throws -> Data {
        guard let record = recipient ? FuzzDevices.recipientRecord : FuzzDevices.senderRecord else {
            throw FuzzViolation("the fixed device records could not be made")
        }
        return try record.serverJSON()
    }

    /// The seed message: `content` sealed from the fixed sender to the fixed recipient, as JSON.
    public static func fuzzMessageJSON(topic: MessageTopic, data text: String) throws -> Data {
        guard let recipient = FuzzDevices.recipientRecord, let sender = FuzzDevices.senderRecord else {
            throw FuzzViolation("the fixed device records could not be made")
        }
        let content = MessageContent(topic: topic, data: text, created: FuzzDevices.created)
        let record = try DeviceSealing.sealMessage(content, id: FuzzDevices.messageID, to: recipient, from: sender.id,
                                                   senderKey: FuzzDevices.sender, vaultKey: testKey)
        return Data(try record.text().utf8)
    }

    private static func messageRecord(_ data: Data) throws {
        guard let record = MessageRecord.decode(data) else { return }
        let text: String = try mustSucceed { try record.text() } else: { "a decoded message does not encode: \($0)" }
        let again: MessageRecord = try mustSucceed { try MessageRecord.decode(text) } else: { _ in
            "a message's text does not decode: \(text)"
        }
        guard again == record, (try? again.text()) == text else {
            throw FuzzViolation("a message changed through its text: \(text)")
        }
        guard let recipient = FuzzDevices.recipientRecord, let sender = FuzzDevices.senderRecord else { return }
        do {
            _ = try DeviceSealing.openMessage(record, with: FuzzDevices.recipient, from: sender, vaultKey: testKey)
        } catch let error as CoreError {
            guard case .tampered = error else { throw FuzzViolation("openMessage threw \(error), not tampered") }
            return
        }
        guard record.id == FuzzDevices.messageID, record.recipient == recipient.id, record.sender == sender.id else {
            throw FuzzViolation("a message with other ids opened: \(text)")
        }
    }

    private static func deviceRecord(_ data: Data) throws {
        guard let record = DeviceRecord.decode(data) else { return }
        let json: Data = try mustSucceed { try record.serverJSON() } else: { "a decoded device record does not encode: \($0)" }
        var sent = record
        sent.lastModified = nil
        guard let again = DeviceRecord.decode(json), again == sent, (try? again.serverJSON()) == json else {
            throw FuzzViolation("a device record changed through its JSON: \(String(decoding: json, as: UTF8.self))")
        }
        _ = DeviceSealing.publicKey(of: record)
        guard DeviceSealing.verifiedName(of: record, vaultKey: testKey) != nil else { return }
        // Only a box sealed under the vault key verifies, and it names the record's id and key.
        let genuine = [FuzzDevices.senderRecord, FuzzDevices.recipientRecord].compactMap { $0 }
        guard genuine.contains(where: { $0.id == record.id && $0.publicKey == record.publicKey }) else {
            throw FuzzViolation("a forged device record verified: \(String(decoding: json, as: UTF8.self))")
        }
    }

    private static func messageContent(_ data: Data) throws {
        guard let content = try? DeviceJSON.decoder.decode(MessageContent.self, from: data) else { return }
        let json: Data = try mustSucceed { try DeviceJSON.encoder.encode(content) } else: {
            "decoded message content does not encode: \($0)"
        }
        guard let again = try? DeviceJSON.decoder.decode(MessageContent.self, from: json), again == content else {
            throw FuzzViolation("message content changed through its JSON: \(String(decoding: json, as: UTF8.self))")
        }
    }

    private static func sealedMessage(_ data: Data, topic: MessageTopic) throws {
        guard let recipient = FuzzDevices.recipientRecord, let sender = FuzzDevices.senderRecord else {
            throw FuzzViolation("the fixed device records could not be made")
        }
        let content = MessageContent(topic: topic, data: String(decoding: data, as: UTF8.self), created: FuzzDevices.created)
        let plainLength = (try? DeviceJSON.encoder.encode(content).count) ?? 0
        let record: MessageRecord
        do {
            record = try DeviceSealing.sealMessage(content, id: FuzzDevices.messageID, to: recipient, from: sender.id,
                                                   senderKey: FuzzDevices.sender, vaultKey: testKey)
        } catch let error as CoreError {
            guard case .deviceMessage = error, plainLength > MessageContent.maximumBytes else {
                throw FuzzViolation("sealing \(plainLength) bytes of content threw \(error)")
            }
            return
        }
        guard plainLength <= MessageContent.maximumBytes else { throw FuzzViolation("sealed \(plainLength) bytes of content") }
        let opened: MessageContent = try mustSucceed {
            try DeviceSealing.openMessage(record, with: FuzzDevices.recipient, from: sender, vaultKey: testKey)
        } else: {
            "a freshly sealed message does not open: \($0)"
        }
        guard opened == content else { throw FuzzViolation("open(seal(content)) != content") }
        func expectTampered(_ what: String, _ changed: MessageRecord, from origin: DeviceRecord = sender) throws {
            do {
                _ = try DeviceSealing.openMessage(changed, with: FuzzDevices.recipient, from: origin, vaultKey: testKey)
                throw FuzzViolation("\(what): the message opened")
            } catch let error as CoreError {
                guard case .tampered = error else { throw FuzzViolation("\(what): threw \(error), not tampered") }
            }
        }
        // One forgery an input (`InputChoice`): each costs an HPKE open, two X25519 operations.
        switch InputChoice.one(below: 3, from: data) {
        case 0:
            var flipped = record
            if var bytes = Data(base64Encoded: record.ciphertext), !bytes.isEmpty {
                let position = data.count % bytes.count
                bytes[position] ^= 0x01 << UInt8(data.count % 8)
                flipped.ciphertext = bytes.base64EncodedString()
                try expectTampered("a flipped bit", flipped)
            }
        case 1:
            var moved = record
            moved.id += "x"
            try expectTampered("another id", moved)
        default:
            var forged = record
            forged.sender = recipient.id
            try expectTampered("another sender", forged, from: recipient)
        }
    }
}
