import Foundation

/// Brings a shared bucket's permissions back to what the roster implies (`SharedPermissionPlan`),
/// then reads them back: what a member set while a member (their own account on a list, a group
/// of their own) or what Kinto gave a bucket's creator goes at the next revocation, or at the
/// sync of a member who finds it (`RosterStep`).
///
/// What cannot be made right: the writer's own account stays on `write` of everything it
/// rewrites (Kinto 26.5 adds it back), and a bucket whose `write` names neither the group nor
/// this account (a member replaced it by their own account) refuses this account, which cannot
/// even read it: that is reported, never hidden. The members still sync through the group on
/// each collection's `write`.
public enum SharedPermissions {
    /// What a restore did and what it left.
    public struct Outcome: Sendable, Equatable {
        /// The rewrites made.
        public var fixed: [SharedPermissionPlan.Fix] = []
        /// One sentence per thing still not as the roster implies after reading back.
        public var unresolved: [String] = []

        public var isRight: Bool { unresolved.isEmpty }
    }

    /// Reads the bucket's permissions and rewrites what `allowed` (plus this client's own
    /// account, which every rewrite puts back) does not explain; then reads them back.
    ///
    /// - Throws: a `KintoError` other than a refusal (offline, server failure): the caller runs
    ///   it again later. A refusal is part of the outcome.
    public static func restore(with client: KintoClient, allowing allowed: Set<String>) async throws -> Outcome {
        let allowed = allowed.union([client.accountPrincipal])
        var outcome = Outcome()
        let observed: SharedBucketPermissions
        do {
            observed = try await client.sharedPermissions()
        } catch KintoError.unauthorized {
            outcome.unresolved = [refusedSentence]
            return outcome
        }
        let fixes = plan(observed, client: client, allowed: allowed)
        guard !fixes.isEmpty else { return outcome }
        for fix in fixes {
            do {
                try await apply(fix, with: client)
                outcome.fixed.append(fix)
            } catch KintoError.unauthorized {
                // Reported by the read back below.
            }
        }
        do {
            let after = try await client.sharedPermissions()
            outcome.unresolved = plan(after, client: client, allowed: allowed).map { "\($0) could not be made right" }
        } catch KintoError.unauthorized {
            outcome.unresolved = [refusedSentence]
        }
        return outcome
    }

    static let refusedSentence = "the server no longer lets this account read the bucket's permissions "
        + "(a member may have replaced the members' group on its write with their own account)"

    private static func plan(_ observed: SharedBucketPermissions, client: KintoClient, allowed: Set<String>) -> [SharedPermissionPlan.Fix] {
        SharedPermissionPlan.fixes(for: observed, membersGroup: KintoClient.membersGroup, membersPrincipal: client.membersPrincipal,
                                   allowed: allowed)
    }

    private static func apply(_ fix: SharedPermissionPlan.Fix, with client: KintoClient) async throws {
        switch fix {
        case .bucket: try await client.setBucketPermissions(write: [client.membersPrincipal])
        case .collection(let id): try await client.setCollectionPermissions(id, write: [client.membersPrincipal])
        case .membersGroup: try await client.setGroupPermissions(KintoClient.membersGroup, write: [client.membersPrincipal])
        case .deleteGroup(let id): try await client.deleteGroup(id)
        }
    }
}
