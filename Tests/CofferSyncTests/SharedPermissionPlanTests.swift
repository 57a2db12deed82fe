@testable import CofferSync
import XCTest

/// The pure decision of what a shared bucket's permissions need (architecture §17, "The server's
/// permissions"): each case names the rewrite that must follow, or none.
final class SharedPermissionPlanTests: XCTestCase {
    let group = "/buckets/share-x/groups/members"
    let ann = "account:ann", bob = "account:bob", eve = "account:eve"

    private func fixes(bucket: KintoPermissions, collections: [String: KintoPermissions] = [:],
                       groups: [String: KintoPermissions]? = nil, allowed: Set<String>) -> [SharedPermissionPlan.Fix] {
        SharedPermissionPlan.fixes(for: SharedBucketPermissions(bucket: bucket, collections: collections,
                                                                   groups: groups ?? ["members": ["write": [group]]]),
                                   membersGroup: "members", membersPrincipal: group, allowed: allowed)
    }

    func testWhatTheRosterImpliesNeedsNothing() {
        XCTAssertEqual(fixes(bucket: ["write": [group, bob]], collections: ["items": ["write": [bob, group]], "roster": ["write": [group]]],
                             groups: ["members": ["write": [group, bob]]], allowed: [bob]), [])
    }

    func testAMembersOwnEntriesStayAtASyncButNotAtARevocation() {
        let observed: KintoPermissions = ["write": [group, ann, bob]]
        XCTAssertEqual(fixes(bucket: observed, collections: ["items": ["write": [ann, group]]], allowed: [ann, bob]), [], "both members")
        XCTAssertEqual(fixes(bucket: observed, collections: ["items": ["write": [ann, group]]], allowed: [bob]), [.bucket, .collection("items")],
                       "Bob revokes Ann, the creator")
    }

    func testTheGroupMissingFromTheBucketsWriteIsRestored() {
        XCTAssertEqual(fixes(bucket: ["write": [bob]], allowed: [bob]), [.bucket])
        XCTAssertEqual(fixes(bucket: ["read": [group]], allowed: [bob]), [.bucket])
    }

    func testAStrangerOnAnyListOrAnotherGroupIsFound() {
        XCTAssertEqual(fixes(bucket: ["write": [group], "group:create": [eve]], allowed: [bob]), [.bucket])
        XCTAssertEqual(fixes(bucket: ["write": [group], "read": ["system.Authenticated"]], allowed: [bob]), [.bucket])
        XCTAssertEqual(fixes(bucket: ["write": [group]], collections: ["seals": ["write": [group], "record:create": [eve]], "items": ["write": [group], "read": [eve]]],
                             allowed: [bob]), [.collection("items"), .collection("seals")])
        XCTAssertEqual(fixes(bucket: ["write": [group]], groups: ["members": ["write": [group], "read": [eve]], "mine": [:]], allowed: [bob]),
                       [.membersGroup, .deleteGroup("mine")])
        XCTAssertEqual(fixes(bucket: ["write": [group]], collections: ["items": ["write": [group, "/buckets/share-x/groups/mine"]]], allowed: [bob]),
                       [.collection("items")], "another group's principal is a stranger too")
    }

    /// Kinto shows `{}` to an account its `write` does not name: unknown, so rewritten.
    func testAListHiddenFromThisAccountIsRewritten() {
        XCTAssertEqual(fixes(bucket: ["write": [group]], collections: ["items": [:]], groups: ["members": [:]], allowed: [bob]),
                       [.collection("items"), .membersGroup])
    }
}
