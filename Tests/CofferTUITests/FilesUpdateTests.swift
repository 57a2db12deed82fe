import CofferCore
import Foundation
import XCTest
@testable import CofferTUI

/// An item's files on its detail page (issue 30): `w` saves the file at ▸ to a typed path, asking
/// before it writes over a file; `a` adds one from a path; `x` removes one after a yes; a file
/// that has not arrived cannot be saved. And `LocalFile`, which the runtime writes and reads with.
final class FilesUpdateTests: XCTestCase {
    let now = FakeClock.start
    static let scan = Attachment(id: "file-scan", name: "scan.pdf", size: 1_234_567, sha256: String(repeating: "a", count: 64),
                                 added: Fixtures.timestamp("2026-11-21T08:00:00.000Z"))
    static let photo = Attachment(id: "file-photo", name: "photo.jpg", size: 48_213, sha256: String(repeating: "b", count: 64),
                                  added: Fixtures.timestamp("2026-11-21T09:00:00.000Z"))

    /// The bank's login with two files; `scan.pdf` is here, `photo.jpg` has not arrived.
    static var bankWithFiles: Item {
        var item = Fixtures.bank
        item.attachments = [scan, photo]
        return item
    }

    static func detail(selected: DetailField? = .file(scan.id)) -> ScreenState {
        var items = Fixtures.items
        if let index = items.firstIndex(where: { $0.id == Fixtures.bank.id }) { items[index] = ScreenItem(bankWithFiles) }
        var state = Fixtures.unlocked(items: items)
        state.settings.directory = "/home/alice"
        state.arrivedFiles = [scan.id]
        state.list.selectedID = Fixtures.bank.id
        state.page = .detail(DetailState(itemID: Fixtures.bank.id, selected: selected))
        return state
    }

    func press(_ keys: [Key], in state: inout ScreenState) -> [Effect] {
        keys.flatMap { Update.apply(.key($0), to: &state, now: now) }
    }

    func typed(_ text: String) -> [Key] { text.map { Key.character($0) } }

    // MARK: Saving

    func testSaveAsksForAPathInTheCurrentDirectoryThenSavesThere() {
        var state = Self.detail()
        XCTAssertTrue(KeyBindings.hints(for: state).contains("w/a/x files"))
        XCTAssertEqual(press([.character("w")], in: &state), [])
        guard case .path(let prompt) = state.overlay else { return XCTFail("no prompt: \(String(describing: state.overlay))") }
        XCTAssertEqual(prompt.path.text, "/home/alice/scan.pdf")
        let effects = press([.control("u")] + typed("~/Documents/passport.pdf") + [.enter], in: &state)
        XCTAssertEqual(effects, [.saveFile(itemID: Fixtures.bank.id, fileID: Self.scan.id, path: "~/Documents/passport.pdf",
                                           replacing: false)])
        XCTAssertNil(state.overlay)
        XCTAssertNil(state.awaiting, "a save to a path sets no page: nothing to wait for")
        _ = Update.apply(.fileSaved("Saved “scan.pdf” (1.2 MB) to ~/Documents/passport.pdf."), to: &state, now: now)
        XCTAssertEqual(state.notice?.isError, false)
    }

    func testAnEmptyPathIsNotSubmittedAndEscapeCancels() {
        var state = Self.detail()
        _ = press([.character("w"), .control("u")], in: &state)
        XCTAssertEqual(press([.enter], in: &state), [])
        XCTAssertEqual(state.notice?.text, "Type a path.")
        XCTAssertEqual(press([.escape], in: &state), [])
        XCTAssertNil(state.overlay)
    }

    /// The runtime found a file at the path: the screen asks; no keeps it, yes writes over it.
    func testAnExistingPathIsWrittenOverOnlyAfterAYes() {
        var state = Self.detail()
        let exists = ScreenEvent.fileExists(itemID: Fixtures.bank.id, fileID: Self.scan.id, path: "/home/alice/scan.pdf")
        XCTAssertEqual(Update.apply(exists, to: &state, now: now), [])
        guard case .confirm(let question) = state.overlay else { return XCTFail("not asked") }
        XCTAssertTrue(question.question.contains("exists"), question.question)
        XCTAssertEqual(press([.character("n")], in: &state), [], "no writes nothing")
        XCTAssertNil(state.overlay)
        _ = Update.apply(exists, to: &state, now: now)
        XCTAssertEqual(press([.character("y")], in: &state),
                       [.saveFile(itemID: Fixtures.bank.id, fileID: Self.scan.id, path: "/home/alice/scan.pdf", replacing: true)])
    }

    /// The question of writing over a file is not asked over another page.
    func testAnExistingPathFoundAfterLeavingTheItemAsksNothing() {
        var state = Self.detail()
        _ = press([.escape], in: &state)
        _ = Update.apply(.fileExists(itemID: Fixtures.bank.id, fileID: Self.scan.id, path: "/x"), to: &state, now: now)
        XCTAssertNil(state.overlay)
    }

    func testAFileThatHasNotArrivedCannotBeSaved() {
        var state = Self.detail(selected: .file(Self.photo.id))
        XCTAssertFalse(KeyBindings.hints(for: state).contains("w save"))
        XCTAssertEqual(press([.character("w")], in: &state), [])
        XCTAssertNil(state.overlay)
        XCTAssertEqual(state.notice?.text,
                       "The file “photo.jpg” has not arrived from the server yet: it comes with a sync.")
        // Once a listing says it is here, it can.
        _ = Update.apply(.arrivedFilesRead([Self.scan.id, Self.photo.id]), to: &state, now: now)
        _ = press([.character("w")], in: &state)
        guard case .path(let prompt) = state.overlay else { return XCTFail("no prompt") }
        XCTAssertEqual(prompt.path.text, "/home/alice/photo.jpg")
    }

    func testFileKeysNeedTheCursorOnAFile() {
        var state = Self.detail(selected: .entry("username"))
        XCTAssertEqual(press([.character("w")], in: &state), [])
        XCTAssertEqual(state.notice?.text, "Move ▸ to a file first.")
        XCTAssertEqual(press([.character("x")], in: &state), [])
        XCTAssertNil(state.overlay)
        // ↓ from the notes reaches the files.
        state.page = .detail(DetailState(itemID: Fixtures.bank.id, selected: .notes))
        _ = press([.down], in: &state)
        guard case .detail(let detail) = state.page else { return XCTFail() }
        XCTAssertEqual(detail.selected, .file(Self.scan.id))
        // Enter copies nothing from a file.
        XCTAssertEqual(press([.enter], in: &state), [])
        XCTAssertEqual(state.notice?.text, "A file is not copied: w saves it to a path.")
    }

    /// A name another device wrote cannot lead the offered path out of the directory.
    func testTheOfferedPathKeepsOnlyTheNamesLastPart() {
        XCTAssertEqual(Update.fileName("../../.ssh/authorized_keys"), "authorized_keys")
        XCTAssertEqual(Update.fileName(".."), "file")
    }

    // MARK: Adding

    func testAddAsksForAPathAndWaitsForTheItem() {
        var state = Self.detail(selected: .entry("username"))
        _ = press([.character("a")], in: &state)
        guard case .path(let prompt) = state.overlay else { return XCTFail("no prompt") }
        XCTAssertEqual(prompt.path.text, "/home/alice/")
        let effects = press(typed("big.iso") + [.enter], in: &state)
        XCTAssertEqual(effects, [.addFile(itemID: Fixtures.bank.id, path: "/home/alice/big.iso")])
        XCTAssertEqual(state.awaiting?.kind, .files(itemID: Fixtures.bank.id))
    }

    /// Too large (or any failure): one sentence as an error notice, and the keys typed meanwhile go.
    func testATooLargeFileIsRefusedInOneSentence() {
        var state = Self.detail()
        _ = press([.character("a")] + typed("big.iso") + [.enter, .character("j")], in: &state)
        XCTAssertEqual(state.awaiting?.keys, [.character("j")])
        _ = Update.apply(.fileActionFailed(Attachment.tooLarge(20 << 20)), to: &state, now: now)
        XCTAssertEqual(state.notice?.isError, true)
        XCTAssertEqual(state.notice?.text, "The file is 20971520 bytes; an attachment holds at most 16 MiB (16777216 bytes).")
        XCTAssertNil(state.awaiting)
        guard case .detail(let detail) = state.page else { return XCTFail() }
        XCTAssertEqual(detail.selected, .file(Self.scan.id), "the kept j was dropped")
    }

    /// A file added here is here at once: it can be saved before the next listing.
    func testAnAddedFileCanBeSavedAtOnce() {
        var state = Self.detail()
        _ = press([.character("a")] + typed("notes.txt") + [.enter, .character("j"), .character("j")], in: &state)
        var item = Self.bankWithFiles
        let added = Attachment(id: "file-new", name: "notes.txt", size: 3, sha256: String(repeating: "c", count: 64),
                               added: Fixtures.timestamp("2026-11-22T09:00:00.000Z"))
        item.attachments.append(added)
        let effects = Update.apply(.filesChanged(item, addedFileID: added.id, message: "Added “notes.txt” (3 bytes)."),
                                   to: &state, now: now)
        XCTAssertTrue(effects.contains(.reload))
        XCTAssertTrue(state.arrivedFiles.contains(added.id))
        XCTAssertEqual(state.item(Fixtures.bank.id)?.item?.attachments.count, 3)
        XCTAssertNil(state.awaiting)
        // The j j typed meanwhile moved past photo.jpg to the new file.
        guard case .detail(let detail) = state.page else { return XCTFail() }
        XCTAssertEqual(detail.selected, .file(added.id))
        _ = press([.character("w")], in: &state)
        guard case .path(let prompt) = state.overlay else { return XCTFail("no prompt: \(String(describing: state.notice))") }
        XCTAssertEqual(prompt.path.text, "/home/alice/notes.txt")
    }

    // MARK: Removing

    func testRemoveAsksThenRemovesAndKeysTypedMeanwhileActAfter() {
        var state = Self.detail()
        XCTAssertEqual(press([.character("x")], in: &state), [])
        guard case .confirm(let question) = state.overlay else { return XCTFail("not asked") }
        XCTAssertEqual(question.question, "Remove the file “scan.pdf”?")
        XCTAssertEqual(press([.character("y")], in: &state), [.removeFile(itemID: Fixtures.bank.id, fileID: Self.scan.id)])
        // Typed before the item came back: meant for the page without the file.
        XCTAssertEqual(press([.character("x")], in: &state), [])
        XCTAssertNil(state.overlay, "no question while the removal runs")
        var item = Self.bankWithFiles
        item.attachments.removeFirst()
        _ = Update.apply(.filesChanged(item, addedFileID: nil, message: "Removed the file."), to: &state, now: now)
        XCTAssertNil(state.awaiting)
        guard case .confirm(let next) = state.overlay else { return XCTFail("the kept x was not replayed") }
        XCTAssertEqual(next.question, "Remove the file “photo.jpg”?")
    }

    func testNoRemovesNothing() {
        var state = Self.detail()
        XCTAssertEqual(press([.character("x"), .character("n")], in: &state), [])
        XCTAssertEqual(state.item(Fixtures.bank.id)?.item?.attachments.count, 2)
    }

    /// The question goes when the file does (another process removed it).
    func testTheRemovalQuestionGoesWithTheFile() {
        var state = Self.detail()
        _ = press([.character("x")], in: &state)
        var item = Self.bankWithFiles
        item.attachments.removeFirst()
        var items = state.items
        if let index = items.firstIndex(where: { $0.id == item.id }) { items[index] = ScreenItem(item) }
        _ = Update.apply(.reloaded(items: items, summary: state.summary), to: &state, now: now)
        XCTAssertNil(state.overlay)
    }

    // MARK: LocalFile

    func testLocalFileWritesNewFiles0600AndRefusesAnExistingOne() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("out.bin").path
        try LocalFile.write(Data([1, 2, 3]), to: path, replacing: false)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data([1, 2, 3]))
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600)
        XCTAssertThrowsError(try LocalFile.write(Data([9]), to: path, replacing: false)) { error in
            XCTAssertEqual(error as? LocalFile.Problem, .exists)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data([1, 2, 3]), "refused, yet written")
        chmod(path, 0o644)
        try LocalFile.write(Data([9]), to: path, replacing: true)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data([9]))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["out.bin"],
                       "nothing written beside the path")
    }

    func testLocalFileRefusesMoreThan16MiBBeforeReading() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-big-\(UUID().uuidString)").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        defer { unlink(path) }
        XCTAssertEqual(truncate(path, off_t(Attachment.sizeLimit + 1)), 0)  // sparse: nothing to read
        XCTAssertThrowsError(try LocalFile.read(path, limit: Attachment.sizeLimit)) { error in
            XCTAssertEqual(error as? LocalFile.Problem, .tooLarge(size: Attachment.sizeLimit + 1))
        }
        XCTAssertEqual(truncate(path, off_t(Attachment.sizeLimit)), 0)
        XCTAssertEqual(try LocalFile.read(path, limit: Attachment.sizeLimit).count, Attachment.sizeLimit)
        XCTAssertEqual(LocalFile.sentence(.tooLarge(size: Attachment.sizeLimit + 1), path: path, reading: true),
                       Attachment.tooLarge(Attachment.sizeLimit + 1))
    }

    func testTildeIsTheHomeDirectory() {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        XCTAssertEqual(LocalFile.expanded("~/a.pdf"), home + "/a.pdf")
        XCTAssertEqual(LocalFile.expanded("/tmp/~/a"), "/tmp/~/a")
    }

    func testSizesReadAsPeopleReadThem() {
        XCTAssertEqual(Format.size(1), "1 byte")
        XCTAssertEqual(Format.size(999), "999 bytes")
        XCTAssertEqual(Format.size(48_213), "48.2 kB")
        XCTAssertEqual(Format.size(999_999), "1.0 MB")
        XCTAssertEqual(Format.size(1_234_567), "1.2 MB")
        XCTAssertEqual(Format.size(16 << 20), "16.8 MB")
    }
}
