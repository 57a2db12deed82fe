/// The Trash view (`Z`; issue 43): the items `d` or another device put in the trash, listed from
/// `ScreenState.trashedItems`, and the cursor.
struct TrashPage: Sendable, Equatable {
    var cursor = 0
}
