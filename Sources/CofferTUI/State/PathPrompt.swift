import CofferCore

/// The question of a path on an item's detail page: where to save one of its files (`w`), or
/// which file to add to it (`a`). The path is the person's, word for word: the runtime expands a
/// leading `~/` and writes or reads nothing else.
///
/// Like a `Confirmation`, it belongs to the page it was asked on and closes, unanswered, when that
/// page goes.
struct PathPrompt: Sendable, Equatable {
    enum Purpose: Sendable, Equatable {
        /// Save the item's file with this id (named `name`) to the path.
        case saveFile(itemID: String, fileID: String, name: String)
        /// Add the file at the path to the item.
        case addFile(itemID: String)
    }

    var purpose: Purpose
    var path: TextField
    /// The page the question was asked on.
    var askedOn: Page.Identity

    init(_ purpose: Purpose, path: String, askedOn: Page.Identity) {
        self.purpose = purpose
        self.path = TextField(path)
        self.askedOn = askedOn
    }

    var title: String {
        switch purpose {
        case .saveFile(_, _, let name): return "Save “\(TerminalText.line(name))” to"
        case .addFile: return "Add the file at"
        }
    }
}
