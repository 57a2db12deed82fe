import CofferCore
@testable import CofferSync
import Foundation
import XCTest

/// A member's sync brings the bucket's permissions back to what the roster implies when it finds
/// them changed (architecture §17, "The server's permissions"), but an idle sync checks only once
/// a day: the three people of `SharedVaultFixture`, each with their own account, on the real Kinto.
final class SharedPermissionsTests: XCTestCase {
    var server: TestServer!

    override func setUp() async throws {
        server = try TestServer.require()
    }

    /// A raw request by `client`'s account on its bucket; its status.
    private func send(_ method: String, _ path: String, _ body: String? = nil, with client: KintoClient) async throws -> Int {
        let url = try KintoClient.endpoint(server.url, "/buckets/\(client.bucket)\(path)")
        do {
            return try await client.perform(method, url, body: body.map { Data($0.utf8) }).status
        } catch KintoError.unauthorized {
            return 403
        }
    }

    func testAMembersSyncRestoresThePermissionsItFindsChangedAtMostADayLate() async throws {
        let memo = Argon2idMemo()
        try await PassphraseKeys.$stretching.withValue({ try memo.stretch($0, $1, $2, $3) }) {
            let directory = try temporaryDirectory(self)
            let clock = TestClock()
            let ann = SharedVaultFixture.Member("Ann", credentials: try await server.makeAccount())
            let bob = SharedVaultFixture.Member("Bob", credentials: try await server.makeAccount())
            let cat = SharedVaultFixture.Member("Cat", credentials: try await server.makeAccount())
            let (vault, a) = try await SharedVaultFixture.create("home", by: ann, server: server.url, in: directory, clock: clock)
            await a.syncExpectingSuccess()
            try await vault.invite(bob, by: ann, server: server.url)
            let b = try await vault.join(bob, server: server.url)
            try await vault.invite(cat, by: ann, server: server.url)
            _ = try await vault.join(cat, server: server.url)
            await b.syncExpectingSuccess()
            XCTAssertNotNil(try b.vault.database.meta(.permissionsChecked), "a sync that saw the roster change checked")

            // Cat, a member, lets a stranger read the bucket, makes a group of her own, and puts
            // Bob and herself on the bucket's write in place of the group: Ann is refused.
            let stranger = KintoClient(server: server.url, credentials: try await server.makeAccount(), bucket: vault.vaultID.bucket)
            let catClient = vault.client(of: cat, server: server.url)
            let annClient = vault.client(of: ann, server: server.url)
            let bobClient = vault.client(of: bob, server: server.url)
            let changed = try await send("PATCH", "", #"{"permissions":{"read":["\#(stranger.accountPrincipal)"],"write":["\#(bobClient.accountPrincipal)"]}}"#,
                                         with: catClient)
            XCTAssertEqual(changed, 200)
            let made = try await send("PUT", "/groups/mine", #"{"data":{"members":["\#(catClient.accountPrincipal)"]}}"#, with: catClient)
            XCTAssertEqual(made, 201)
            let strangerReads = try await send("GET", "/collections/roster/records", with: stranger)
            XCTAssertEqual(strangerReads, 200)
            let annRefused = try await send("GET", "", with: annClient)
            XCTAssertEqual(annRefused, 403)

            // An idle sync within the day does not look: nothing is asked beyond the roster's 304.
            clock.advance(60 * 60)
            await b.syncExpectingSuccess()
            let stillReads = try await send("GET", "/collections/roster/records", with: stranger)
            XCTAssertEqual(stillReads, 200, "checked within the day")

            // A day later Bob's sync finds and restores it all, and reads it back.
            clock.advance(RosterStep.permissionsCheckInterval)
            await b.syncExpectingSuccess()
            let after = try await bobClient.sharedPermissions()
            XCTAssertEqual(after.bucket.filter { !$0.value.isEmpty }.mapValues { Set($0) },
                           ["write": [bobClient.membersPrincipal, bobClient.accountPrincipal]])
            XCTAssertEqual(Set(after.groups.keys), ["members"])
            let strangerRefused = try await send("GET", "/collections/roster/records", with: stranger)
            XCTAssertEqual(strangerRefused, 403)
            let annBack = try await send("GET", "", with: annClient)
            XCTAssertEqual(annBack, 200)
            await a.syncExpectingSuccess()
        }
    }
}
