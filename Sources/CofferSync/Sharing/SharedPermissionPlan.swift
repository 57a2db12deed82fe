import Foundation

/// What the roster implies for a shared bucket's permissions (architecture §17, "The server's
/// permissions"), as a pure decision from what the server holds to the rewrites that bring it
/// there: the bucket's, each collection's and the members' group's `write` name the members'
/// group, no list names an account outside `allowed` or any other group, and no group but
/// `members` exists.
///
/// The group on each collection's and on its own `write` grants nothing the bucket's does not,
/// but Kinto shows an object's permissions only to a principal its own `write` names: without
/// it a member reads `{}` and cannot tell a stranger's entry from none. It also lets members
/// keep syncing and changing the group if someone takes the bucket's `write` for themselves.
///
/// `allowed` are the accounts that may stay on a list: at a revocation only the revoker's own
/// (Kinto puts whoever writes a permission back on its `write`); at a sync every member's, so
/// members do not undo each other's unavoidable entries at every sync.
public enum SharedPermissionPlan {
    /// One rewrite, named for the report.
    public enum Fix: Sendable, Equatable, CustomStringConvertible {
        /// The bucket's `write` set to the members' group alone (Kinto adds the writer).
        case bucket
        /// A collection's `write` set to the members' group alone.
        case collection(String)
        /// The members' group's `write` set to itself alone (its members stay).
        case membersGroup
        /// A group other than `members` deleted.
        case deleteGroup(String)

        public var description: String {
            switch self {
            case .bucket: return "the bucket's permissions"
            case .collection(let id): return "the permissions of the collection \(id)"
            case .membersGroup: return "the permissions of the members' group"
            case .deleteGroup(let id): return "the group \(id)"
            }
        }
    }

    /// The rewrites `observed` needs, bucket first (it gives the members back their access).
    public static func fixes(for observed: SharedBucketPermissions, membersGroup: String, membersPrincipal: String,
                             allowed: Set<String>) -> [Fix] {
        let fitting = allowed.union([membersPrincipal])
        func isWrong(_ permissions: KintoPermissions) -> Bool {
            !(permissions["write"] ?? []).contains(membersPrincipal)
                || permissions.values.contains { list in list.contains { !fitting.contains($0) } }
        }
        var fixes: [Fix] = []
        if isWrong(observed.bucket) { fixes.append(.bucket) }
        for (id, permissions) in observed.collections.sorted(by: { $0.key < $1.key }) where isWrong(permissions) {
            fixes.append(.collection(id))
        }
        for (id, permissions) in observed.groups.sorted(by: { $0.key < $1.key }) {
            if id != membersGroup {
                fixes.append(.deleteGroup(id))
            } else if isWrong(permissions) {
                fixes.append(.membersGroup)
            }
        }
        return fixes
    }
}
