import CofferCore
@testable import CofferSync
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Unique strings in every field of 100 items, synced through the real server: no record on the
/// server and no byte of either device's vault files holds any of them, in any common encoding.
final class ServerCanaryTests: XCTestCase {
    func testNoCanaryReachesTheServerOrTheVaultFiles() async throws {
        let server = try TestServer.require()
        let credentials = try await server.makeAccount()
        let directory = try temporaryDirectory(self)
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials)
        var canaries: [String] = []
        func canary(_ field: String) -> String {
            let value = "cnry\(field)\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16))"
            canaries.append(value)
            return value
        }
        var items: [Item] = []
        for _ in 0..<100 {
            items.append(Item(title: canary("title"), origins: [canary("origin") + ".example"], tags: [canary("tag")],
                              entry: Entry(username: canary("user"), password: canary("pass"), notes: canary("notes"),
                                           totp: canary("totp")),
                              created: a.clock.timestamp))
        }
        try await a.vault.addAll(items)
        for item in items.prefix(10) {
            try await a.edit(item.id) { $0.entry.password = canary("newpass") }
        }
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials)
        let onB = try await b.items()
        XCTAssertEqual(onB.count, 100)

        // Everything the server holds for the account.
        var serverText = ""
        for collection in ["items", "keystores"] {
            var request = URLRequest(url: server.url.appendingPathComponent("buckets/default/collections/\(collection)/records"))
            let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
            request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await URLSession.shared.data(for: request)
            serverText += String(decoding: data, as: UTF8.self)
        }
        XCTAssertTrue(serverText.contains("encrypted"), "the listing was read")
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        var blobs: [(String, Data)] = [("server", Data(serverText.utf8))]
        for file in files { blobs.append((file.lastPathComponent, try Data(contentsOf: file))) }

        var hits: [String] = []
        for value in canaries {
            for form in Self.encodings(of: value) {
                for (name, blob) in blobs where blob.range(of: form) != nil { hits.append("\(value) in \(name)") }
            }
        }
        XCTAssertEqual(hits, [], "canaries found")
        // The scanner can fail: a canary written plainly is found.
        let control = Data(("xx" + canaries[0] + "yy").utf8)
        XCTAssertTrue(Self.encodings(of: canaries[0]).contains { control.range(of: $0) != nil })
    }

    /// Plain UTF-8, UTF-16 (both orders), hex (both cases) and base64 at the three alignments.
    static func encodings(of value: String) -> [Data] {
        let bytes = Data(value.utf8)
        var forms = [bytes, value.data(using: .utf16LittleEndian) ?? Data(), value.data(using: .utf16BigEndian) ?? Data()]
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        forms += [Data(hex.utf8), Data(hex.uppercased().utf8)]
        for shift in 0..<3 {
            let encoded = (Data(repeating: 0, count: shift) + bytes).base64EncodedString()
            // Drop the characters that mix in the padding bytes or the partial last group.
            let start = encoded.index(encoded.startIndex, offsetBy: shift == 0 ? 0 : (shift == 1 ? 2 : 3))
            let end = encoded.index(encoded.endIndex, offsetBy: -4)
            if start < end { forms.append(Data(encoded[start..<end].utf8)) }
        }
        return forms
    }
}
