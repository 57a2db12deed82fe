import CofferCore
import Foundation

/// An item's files on its detail page (issue 30): `w` saves the file under the cursor to a path,
/// `a` adds one from a path, `x` removes the file under the cursor; each asks first (a path, or a
/// yes), and the runtime does the work (`.saveFile`, `.addFile`, `.removeFile`).
extension Update {
    static func performFiles(_ action: Action, in state: inout ScreenState) -> [Effect] {
        switch action {
        case .saveFile:
            guard case .detail(let detail) = state.page, let item = state.item(detail.itemID)?.item,
                  let file = detail.selectedField(in: item)?.attachment(in: item) else { return [] }
            let path = (state.settings.directory as NSString).appendingPathComponent(Self.fileName(file.name))
            state.overlay = .path(PathPrompt(.saveFile(itemID: item.id, fileID: file.id, name: file.name), path: path,
                                             askedOn: state.page.identity))
        case .addFile:
            guard case .detail(let detail) = state.page else { return [] }
            let directory = state.settings.directory
            state.overlay = .path(PathPrompt(.addFile(itemID: detail.itemID),
                                             path: directory.hasSuffix("/") ? directory : directory + "/",
                                             askedOn: state.page.identity))
        case .removeFile:
            guard case .detail(let detail) = state.page, let item = state.item(detail.itemID)?.item,
                  let file = detail.selectedField(in: item)?.attachment(in: item) else { return [] }
            state.overlay = .confirm(Confirmation(
                question: "Remove the file “\(TextLayout.truncated(TerminalText.line(file.name), to: 40))”?",
                action: .removeFile(itemID: item.id, fileID: file.id, name: file.name), askedOn: state.page.identity))
        case .submitPath:
            guard case .path(let prompt) = state.overlay else { return [] }
            state.overlay = nil
            let path = prompt.path.text
            switch prompt.purpose {
            case .saveFile(let itemID, let fileID, _):
                // Not awaited: the page stays, and a key typed before a question of replacing
                // must not answer it.
                return [.saveFile(itemID: itemID, fileID: fileID, path: path, replacing: false)]
            case .addFile(let itemID):
                state.awaiting = AwaitedWork(.files(itemID: itemID))
                return [.addFile(itemID: itemID, path: path)]
            }
        case .cancelPath:
            state.overlay = nil
        default:
            break
        }
        return []
    }

    /// A key typed into the path prompt.
    static func typePath(_ key: Key, in state: inout ScreenState) -> [Effect] {
        guard case .path(var prompt) = state.overlay, prompt.path.edit(with: key) else { return [] }
        state.overlay = .path(prompt)
        return []
    }

    /// A confirmed removal or replacement.
    static func confirmedFile(_ action: Confirmation.Action, in state: inout ScreenState) -> [Effect] {
        switch action {
        case .replaceFile(let itemID, let fileID, let path):
            return [.saveFile(itemID: itemID, fileID: fileID, path: path, replacing: true)]
        case .removeFile(let itemID, let fileID, _):
            state.awaiting = AwaitedWork(.files(itemID: itemID))
            return [.removeFile(itemID: itemID, fileID: fileID)]
        default:
            return []
        }
    }

    static func applyFiles(_ event: ScreenEvent, to state: inout ScreenState, now: Date) -> [Effect] {
        switch event {
        case .arrivedFilesRead(let ids):
            state.arrivedFiles = ids
        case .fileSaved(let message):
            state.notice = Notice(message, until: now.addingTimeInterval(Notice.lifetime))
        case .fileExists(let itemID, let fileID, let path):
            guard state.page.identity == .detail(itemID: itemID) else { return [] }
            state.overlay = .confirm(Confirmation(
                question: "\(TextLayout.truncated(TerminalText.line(path), to: 50)) exists. Write over it?",
                action: .replaceFile(itemID: itemID, fileID: fileID, path: path), askedOn: state.page.identity))
        case .filesChanged(let item, let addedFileID, let message):
            if let index = state.items.firstIndex(where: { $0.id == item.id }) {
                let before = state.items[index].item?.attachments ?? []
                state.items[index].content = .ready(item)
                state.items[index].hasLocalChange = true
                keepFileCursor(in: &state, itemID: item.id, before: before, after: item.attachments)
            }
            // A file added here is here (the next listing says so too).
            if let addedFileID { state.arrivedFiles.insert(addedFileID) }
            state.notice = Notice(message, until: now.addingTimeInterval(Notice.lifetime))
            let effects = [.reload] + schedule(state.scheduler.handle(.localChange, now: now), in: &state, now: now)
            guard let keys = endAwaiting(.files(itemID: item.id), in: &state) else { return effects }
            return effects + replay(keys, in: &state, now: now)
        case .fileActionFailed(let message):
            state.notice = Notice(message, isError: true, until: now.addingTimeInterval(Notice.lifetime))
            // The keys were typed for the page after the change, which did not come.
            if case .files? = state.awaiting?.kind { state.awaiting = nil }
        default:
            break
        }
        return []
    }

    /// After a file under the cursor went, the cursor rests on the file that took its place (or
    /// the one before it, or the notes), not back on the first field.
    static func keepFileCursor(in state: inout ScreenState, itemID: String, before: [Attachment], after: [Attachment]) {
        guard case .detail(var detail) = state.page, detail.itemID == itemID, case .file(let id)? = detail.selected,
              !after.contains(where: { $0.id == id }), let index = before.firstIndex(where: { $0.id == id }) else { return }
        detail.selected = after.isEmpty ? .notes : .file(after[min(index, after.count - 1)].id)
        state.page = .detail(detail)
    }

    /// The last part of a file's name, so a name another device wrote ("../x", "a/b") cannot lead
    /// the default path out of the directory; the person can still type any path.
    static func fileName(_ name: String) -> String {
        let last = (name as NSString).lastPathComponent
        return last.isEmpty || last == "." || last == ".." ? "file" : last
    }
}
