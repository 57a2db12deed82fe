import CofferCore
import XCTest
@testable import CofferTUI

/// config.toml's [keys] over the key table: every action can take another key, the help page and
/// hints show it, and no remap makes a key do two things or names a key the screen never gets.
final class KeyMapTests: XCTestCase {
    private func entries(_ lines: [(String, String)]) -> [ConfigDocument.Entry] {
        lines.enumerated().map { .init(table: "keys", key: $1.0, value: .string($1.1), line: $0 + 1) }
    }

    private func map(_ lines: (String, String)...) throws -> KeyMap { try KeyMap(entries(lines)) }

    private func refusal(_ lines: (String, String)..., file: StaticString = #filePath, line: UInt = #line) -> ConfigProblem? {
        do {
            _ = try KeyMap(entries(lines))
            XCTFail("accepted", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    /// Every action of the table, remapped alone to a key no binding has, answers to it on every
    /// page it works on, and no longer to its old keys there.
    func testEveryActionOfTheTableCanBeRemapped() throws {
        let free = Key.function(12)
        XCTAssertTrue(KeyBindings.table.allSatisfy { !$0.keys.contains(free) })
        XCTAssertEqual(KeyBindings.remappable, Set(Action.allCases), "an action no remap can reach")
        for action in KeyBindings.remappable {
            let keys = try KeyMap(entries([(action.configName, "F12")]))
            for row in KeyBindings.table where row.action == action && row.isRemappable {
                for context in row.contexts {
                    XCTAssertEqual(KeyBindings.binding(for: free, in: context, map: keys)?.action, action,
                                   "\(action.configName) in \(context)")
                    for old in row.keys {
                        XCTAssertNotEqual(KeyBindings.binding(for: old, in: context, map: keys)?.action, action,
                                          "\(action.configName) still on \(old.displayName) in \(context)")
                    }
                }
            }
        }
    }

    func testNamesOfActionsAndKeys() throws {
        XCTAssertEqual(Action.copyPassword.configName, "copy-password")
        XCTAssertEqual(Action(configName: "copy-totp"), .copyTOTP)
        XCTAssertEqual(Action.moveToTop.configName, "move-to-top")
        XCTAssertEqual(Set(Action.allCases.map(\.configName)).count, Action.allCases.count, "two actions, one name")
        let names: [(String, Key)] = [("y", .character("y")), ("Space", .character(" ")), ("^G", .control("g")),
                                      ("C-g", .control("g")), ("Ctrl-G", .control("g")), ("F5", .function(5)),
                                      ("Down", .down), ("↓", .down), ("Enter", .enter), ("Esc", .escape),
                                      ("PgDn", .pageDown), ("S-Tab", .backTab), ("é", .character("é"))]
        for (name, key) in names { XCTAssertEqual(try KeyName.key(named: name).get(), key, name) }
        for name in ["^C", "^Z", "^S", "^Q", "^H", "^I", "^M", "^["] {
            XCTAssertEqual(KeyName.key(named: name), .failure(.unreceivable(name)), name)
        }
        XCTAssertEqual(KeyName.key(named: "jk"), .failure(.unknown("jk")))
        XCTAssertEqual(KeyName.key(named: "F13"), .failure(.unknown("F13")))
        XCTAssertEqual(KeyName.key(named: "\u{7}"), .failure(.notOneKey("\u{7}")))
    }

    /// Two actions on one key are refused with both named; swapping them in two lines is fine.
    func testAKeyDoesOneThing() throws {
        let problem = refusal(("copy-password", "u"))
        XCTAssertEqual(problem?.line, 1)
        XCTAssertEqual(problem?.reason, "gives u to copy-password, but u also does copy-username on the List page: "
            + "a key does one thing (give copy-username another key too)")
        let swapped = try map(("copy-password", "u"), ("copy-username", "c"))
        XCTAssertEqual(KeyBindings.binding(for: .character("u"), in: .list, map: swapped)?.action, .copyPassword)
        XCTAssertEqual(KeyBindings.binding(for: .character("c"), in: .detail, map: swapped)?.action, .copyUsername)
    }

    func testRefusalsNameTheLine() {
        XCTAssertEqual(refusal(("help", "F1"), ("lock", "^C"))?.line, 2)
        XCTAssertTrue(refusal(("lock", ""))?.reason.contains("no key") == true)
        XCTAssertTrue(refusal(("lock", "ab"))?.reason.contains("does not know") == true)
        do {
            _ = try KeyMap([.init(table: "keys", key: "lock", value: .integer(3), line: 4)])
            XCTFail("a number accepted")
        } catch {
            XCTAssertEqual(error.line, 4)
        }
    }

    func testUnknownActionsWarn() throws {
        let keys = try map(("lock", "^L"), ("redraw", "F9"), ("teleport", "x"))
        XCTAssertEqual(keys.warnings, ["The [keys] of the configuration name “teleport” (line 3), which is no action of the screen: ignored."])
        XCTAssertEqual(KeyBindings.binding(for: .control("l"), in: .list, map: keys)?.action, .lock)
    }

    /// Where keys type, a printable remap stays out: the filter keeps its letters, and the action
    /// keeps its own keys there unless a key that does not type is given.
    func testTypingKeepsItsLetters() throws {
        let keys = try map(("page-down", "J"), ("move-down", "Down"))
        XCTAssertNil(KeyBindings.binding(for: .character("J"), in: .filter, map: keys))
        XCTAssertEqual(KeyBindings.binding(for: .pageDown, in: .filter, map: keys)?.action, .pageDown)
        XCTAssertEqual(KeyBindings.binding(for: .character("J"), in: .list, map: keys)?.action, .pageDown)
        XCTAssertNil(KeyBindings.binding(for: .pageDown, in: .list, map: keys))
    }

    /// The help page and the hint line show the remapped keys.
    func testHelpAndHintsShowTheRemappedKeys() throws {
        var state = Fixtures.unlocked()
        state.settings.keys = try map(("copy-password", "y"), ("start-filter", "F4"), ("help", "F9 F1"))
        let hints = KeyBindings.hints(for: state)
        XCTAssertTrue(hints.contains("y copy pw"), "\(hints)")
        XCTAssertTrue(hints.contains("F4 filter"), "\(hints)")
        XCTAssertTrue(hints.contains("F9 help"), "\(hints)")
        state.overlay = .help
        let help = Render.frame(state, size: .standard, now: FakeClock.start).text
        XCTAssertTrue(help.contains("y           Copy the password"), help)
        XCTAssertTrue(help.contains("F4          New filter"), help)
        XCTAssertFalse(help.contains("c           Copy the password"), help)
    }

    /// Keys reach `Update` through the map; `n` opens the configured kind.
    func testUpdateActsOnRemappedKeys() throws {
        var state = Fixtures.unlocked()
        state.settings.keys = try map(("new-item", "A"))
        state.settings.newItemKind = .note
        _ = Update.apply(.key(.character("n")), to: &state, now: FakeClock.start)
        guard case .list = state.page else { return XCTFail("n still opened a form") }
        _ = Update.apply(.key(.character("A")), to: &state, now: FakeClock.start)
        guard case .form(let form) = state.page else { return XCTFail("A did not open a form") }
        XCTAssertEqual(form.kind, .note)
    }
}
