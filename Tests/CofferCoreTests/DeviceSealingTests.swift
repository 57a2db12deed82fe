import Crypto
import Foundation
import XCTest
@testable import CofferCore

/// The device and message cryptography without a vault: what opens, and what is refused.
final class DeviceSealingTests: XCTestCase {
    let vaultKey = SecureBuffer.random(count: 32)
    let senderKey = Curve25519.KeyAgreement.PrivateKey()
    let recipientKey = Curve25519.KeyAgreement.PrivateKey()

    func record(_ id: String, _ name: String, _ key: Curve25519.KeyAgreement.PrivateKey,
                vaultKey: SecureBuffer? = nil) throws -> DeviceRecord {
        try DeviceSealing.record(id: id, name: name, publicKey: key.publicKey, vaultKey: vaultKey ?? self.vaultKey)
    }

    func testADeviceRecordVerifiesOnlyWithTheVaultKeyItsIdAndItsKey() throws {
        let laptop = try record("laptop-id", "laptop", senderKey)
        XCTAssertEqual(DeviceSealing.verifiedName(of: laptop, vaultKey: vaultKey), "laptop")
        XCTAssertNil(DeviceSealing.verifiedName(of: laptop, vaultKey: SecureBuffer.random(count: 32)), "another vault")
        var moved = laptop
        moved.id = "other-id"
        XCTAssertNil(DeviceSealing.verifiedName(of: moved, vaultKey: vaultKey), "the box is bound to its id")
        var swapped = laptop
        swapped.publicKey = recipientKey.publicKey.rawRepresentation.base64EncodedString()
        XCTAssertNil(DeviceSealing.verifiedName(of: swapped, vaultKey: vaultKey), "the key in the clear was replaced")
        XCTAssertFalse(laptop.box.contains("laptop"))
    }

    func testAMessageOpensOnceForItsRecipientAndNothingElse() throws {
        let sender = try record("a", "a", senderKey)
        let recipient = try record("b", "b", recipientKey)
        let content = MessageContent(topic: .credentials, data: "new password", created: Timestamp(milliseconds: 1000))
        let sealed = try DeviceSealing.sealMessage(content, id: "m1", to: recipient, from: "a", senderKey: senderKey,
                                                   vaultKey: vaultKey)
        XCTAssertEqual(sealed.expires, 1000 + MessageTopic.credentials.lifetime)
        XCTAssertEqual(try DeviceSealing.openMessage(sealed, with: recipientKey, from: sender, vaultKey: vaultKey), content)

        var moved = sealed
        moved.id = "m2"
        let forger = try record("a", "a", Curve25519.KeyAgreement.PrivateKey())
        let refusals: [(String, () throws -> MessageContent)] = [
            ("another id", { try DeviceSealing.openMessage(moved, with: self.recipientKey, from: sender, vaultKey: self.vaultKey) }),
            ("another vault's PSK", { try DeviceSealing.openMessage(sealed, with: self.recipientKey, from: sender,
                                                                   vaultKey: SecureBuffer.random(count: 32)) }),
            ("another sender key", { try DeviceSealing.openMessage(sealed, with: self.recipientKey, from: forger, vaultKey: self.vaultKey) }),
            ("another recipient", { try DeviceSealing.openMessage(sealed, with: self.senderKey, from: sender, vaultKey: self.vaultKey) }),
        ]
        for (name, open) in refusals {
            XCTAssertThrowsError(try open(), name) { error in
                guard case CoreError.tampered = error else { return XCTFail("\(name): \(error)") }
            }
        }
    }

    func testAMessageHasASizeCap() throws {
        let recipient = try record("b", "b", recipientKey)
        let big = MessageContent(topic: .lock, data: String(repeating: "x", count: MessageContent.maximumBytes),
                                 created: Timestamp(milliseconds: 0))
        XCTAssertThrowsError(try DeviceSealing.sealMessage(big, id: "m", to: recipient, from: "a", senderKey: senderKey,
                                                           vaultKey: vaultKey)) { error in
            guard case CoreError.deviceMessage = error else { return XCTFail("\(error)") }
        }
    }
}
