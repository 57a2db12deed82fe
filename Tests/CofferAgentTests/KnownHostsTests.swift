import CofferCore
import Foundation
import XCTest
@testable import CofferAgent

/// known_hosts as the agent reads it for keys limited to hosts, and the session rules on top.
final class KnownHostsTests: XCTestCase {
    private static let key = "AAAAC3NzaC1lZDI1NTE5AAAAIBvZIMMjXWf2SbYvMR8QJoM2J72nFD2UYWCVw9RkBHYS"
    private static let blob = Data(base64Encoded: key)!

    /// `ssh-keygen -H` hashed "github.com" into this line.
    func testAHashedNameFromSSHKeygenMatchesOnlyItsName() {
        let hosts = KnownHosts(text: "|1|WnbRRv1oVjfM5YM7O51kZVSgmrQ=|ayFx5Qc+sWKsw66QtkY079fBSPc= ssh-ed25519 \(Self.key)\n")
        XCTAssertTrue(hosts.knows(Self.blob, asOneOf: ["GitHub.com"]))
        XCTAssertFalse(hosts.knows(Self.blob, asOneOf: ["gitlab.com", "github.co"]))
        XCTAssertFalse(hosts.knows(Data(Self.blob.reversed()), asOneOf: ["github.com"]))
    }

    func testPatternsNegationCommentsMarkersAndRevocation() {
        let text = """
            # a comment
            *.example.org,!bad.example.org,[10.0.0.1]:2222 ssh-ed25519 \(Self.key) comment
            @cert-authority * ssh-ed25519 \(Self.key)
            garbage
            """
        let hosts = KnownHosts(text: text)
        XCTAssertTrue(hosts.knows(Self.blob, asOneOf: ["git.example.org"]))
        XCTAssertTrue(hosts.knows(Self.blob, asOneOf: ["[10.0.0.1]:2222"]))
        XCTAssertFalse(hosts.knows(Self.blob, asOneOf: ["bad.example.org"]))
        XCTAssertFalse(hosts.knows(Self.blob, asOneOf: ["example.org", "10.0.0.1"]))
        let revoked = KnownHosts(text: text + "\n@revoked * ssh-ed25519 \(Self.key)\n")
        XCTAssertFalse(revoked.knows(Self.blob, asOneOf: ["git.example.org"]))
    }

    func testGlobIsLinearOnHostilePatterns() {
        XCTAssertTrue(KnownHosts.glob(Array("a*b?d"), Array("axxbcd")))
        XCTAssertFalse(KnownHosts.glob(Array("a*b?d"), Array("axxbd")))
        let pattern = Array(String(repeating: "*a", count: 200) + "b")
        let start = Date()
        XCTAssertFalse(KnownHosts.glob(pattern, Array(String(repeating: "a", count: 2000))))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    /// A bind whose signature does not verify, or one for forwarding, hides limited keys; an
    /// unbound connection lists them but may not sign; unlimited keys are never affected.
    func testSessionRules() throws {
        let host = try SSHKey.generate(.ed25519, comment: "host")
        let known = KnownHosts(text: "alpha \(host.authorizedKey)\n")
        let sessionID = Data(repeating: 7, count: 32)
        let signature = try host.signature(for: sessionID, flags: 0)

        let unbound = SSHSession()
        XCTAssertTrue(unbound.mayOffer(["alpha"], knownHosts: { known }))
        XCTAssertFalse(unbound.maySign(["alpha"], knownHosts: { known }))

        var bound = SSHSession()
        XCTAssertTrue(bound.bind(hostKey: host.publicKeyBlob, sessionID: sessionID, signature: signature, isForwarding: false))
        XCTAssertTrue(bound.maySign(["alpha"], knownHosts: { known }))
        XCTAssertFalse(bound.mayOffer(["beta"], knownHosts: { known }))
        XCTAssertTrue(bound.maySign([], knownHosts: { known }))

        var forged = SSHSession()
        XCTAssertFalse(forged.bind(hostKey: host.publicKeyBlob, sessionID: Data(repeating: 8, count: 32), signature: signature,
                                   isForwarding: false))
        XCTAssertFalse(forged.mayOffer(["alpha"], knownHosts: { known }))
        XCTAssertTrue(forged.mayOffer([], knownHosts: { known }))

        XCTAssertTrue(bound.bind(hostKey: host.publicKeyBlob, sessionID: sessionID, signature: signature, isForwarding: true))
        XCTAssertFalse(bound.mayOffer(["alpha"], knownHosts: { known }))

        var many = SSHSession()
        for _ in 0..<SSHSession.maximumBinds {
            XCTAssertTrue(many.bind(hostKey: host.publicKeyBlob, sessionID: sessionID, signature: signature, isForwarding: false))
        }
        XCTAssertFalse(many.bind(hostKey: host.publicKeyBlob, sessionID: sessionID, signature: signature, isForwarding: false))
    }

    func testSignatureChecksForEachHostKeyType() throws {
        for type in SSHKeyType.allCases {
            let key = try SSHKey.generate(type, comment: "")
            let data = Data("session".utf8)
            let signature = try key.signature(for: data, flags: SSHKey.rsaSHA256Flag)
            XCTAssertTrue(SSHSignatureCheck.isValid(signature: signature, by: key.publicKeyBlob, for: data), type.rawValue)
            XCTAssertFalse(SSHSignatureCheck.isValid(signature: signature, by: key.publicKeyBlob, for: Data("other".utf8)), type.rawValue)
            XCTAssertFalse(SSHSignatureCheck.isValid(signature: signature.dropLast(), by: key.publicKeyBlob, for: data), type.rawValue)
        }
    }
}
