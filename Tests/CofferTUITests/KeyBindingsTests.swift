import XCTest
@testable import CofferTUI

/// The key table is the single source of what keys do.
final class KeyBindingsTests: XCTestCase {
    func testNoKeyIsBoundTwiceInOneContext() {
        for context in KeyContext.allCases {
            var seen: [Key: Action] = [:]
            for binding in KeyBindings.bindings(in: context) {
                for key in binding.keys {
                    XCTAssertNil(seen[key], "\(key.displayName) is bound to \(seen[key].map(\.rawValue) ?? "") and "
                                 + "\(binding.action.rawValue) in \(context)")
                    seen[key] = binding.action
                }
            }
        }
    }

    func testTheIssueKeysAreBound() {
        let list: [(Key, Action)] = [
            (.up, .moveUp), (.character("k"), .moveUp), (.down, .moveDown), (.character("j"), .moveDown),
            (.enter, .open), (.character("/"), .startFilter), (.character("n"), .newItem), (.character("e"), .editItem),
            (.character("d"), .deleteItem), (.character("c"), .copyPassword), (.character("u"), .copyUsername),
            (.character("s"), .syncNow), (.character("v"), .reviewConflicts), (.character("L"), .lock),
            (.character("?"), .help), (.character("q"), .quit),
        ]
        for (key, action) in list {
            XCTAssertEqual(KeyBindings.binding(for: key, in: .list)?.action, action, key.displayName)
        }
    }

    func testEveryActionHasAKey() {
        let bound = Set(KeyBindings.table.map(\.action))
        for action in Action.allCases { XCTAssertTrue(bound.contains(action), action.rawValue) }
    }

    func testTextContextsBindNoPrintableKeyThatAlwaysApplies() {
        // A printable key bound in a typing context must be able to fall through to the field.
        for context in KeyContext.allCases where context.takesText {
            for binding in KeyBindings.bindings(in: context) {
                for key in binding.keys where key.typedCharacter != nil {
                    XCTAssertNotNil(binding.disabledReason(Fixtures.unlocked()),
                                    "\(key.displayName) in \(context) would swallow typing")
                }
            }
        }
    }

    func testHintsComeFromTheTable() {
        XCTAssertEqual(KeyBindings.hints(for: Fixtures.unlocked()),
                       ["↵ open", "/ filter", "t sort", "n new", "e edit", "d delete", "c copy pw", "v review",
                        "s sync", "L lock", "? help", "q quit"])
        var state = Fixtures.unlocked()
        state.list.selectedID = "b2"
        XCTAssertTrue(KeyBindings.hints(for: state).contains("u copy user"))
    }
}
