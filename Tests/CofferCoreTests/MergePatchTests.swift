import XCTest
@testable import CofferCore
import CofferTestSupport

final class MergePatchTests: XCTestCase {
    // MARK: RFC 7386 Appendix A

    /// Every example of RFC 7386 Appendix A: (original, patch, result).
    private let appendixA: [(String, String, String)] = [
        (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
        (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
        (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
        (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
        (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
        (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
        (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
        (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
        (#"{"a":"foo"}"#, #"null"#, #"null"#),
        (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
        (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
        (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
        (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
    ]

    func testAppendixAExamples() {
        XCTAssertEqual(appendixA.count, 15)
        for (original, patch, result) in appendixA {
            XCTAssertEqual(MergePatch.apply(json(patch), to: json(original)), json(result),
                           "apply \(patch) to \(original)")
        }
    }

    func testRFCSection3Example() {
        let original = json(#"""
            {"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},"tags":["example","sample"],
             "content":"This will be unchanged"}
            """#)
        let patch = json(#"{"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},"tags":["example"]}"#)
        let expected = json(#"""
            {"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged",
             "phoneNumber":"+01-123-456-7890"}
            """#)
        XCTAssertEqual(MergePatch.apply(patch, to: original), expected)
    }

    func testJSONValueDecodesEachKind() {
        XCTAssertEqual(json("null"), .null)
        XCTAssertEqual(json("true"), .bool(true))
        XCTAssertEqual(json("1"), .number(1))
        XCTAssertEqual(json("0"), .number(0))
        XCTAssertEqual(json("1.5"), .number(1.5))
        XCTAssertEqual(json(#""x""#), .string("x"))
        XCTAssertEqual(json(#"[1,"a",null]"#), .array([.number(1), .string("a"), .null]))
        XCTAssertEqual(json(#"{"k":{"n":false}}"#), .object(["k": .object(["n": .bool(false)])]))
    }

    // MARK: diff

    func testDiffOfEqualDocumentsIsEmpty() {
        let document = json(#"{"a":1,"b":{"c":[1,2],"d":"x"}}"#)
        XCTAssertEqual(MergePatch.diff(from: document, to: document), .object([:]))
    }

    func testDiffHoldsOnlyWhatChanged() {
        let source = json(#"{"keep":1,"change":"old","drop":true,"nested":{"same":1,"inner":"old"}}"#)
        let target = json(#"{"keep":1,"change":"new","added":[1],"nested":{"same":1,"inner":"new"}}"#)
        XCTAssertEqual(MergePatch.diff(from: source, to: target),
                       json(#"{"change":"new","drop":null,"added":[1],"nested":{"inner":"new"}}"#))
    }

    func testDiffRoundTripsNestedObjects() {
        let pairs: [(String, String)] = [
            (#"{"a":{"b":{"c":1}}}"#, #"{"a":{"b":{"c":2,"d":3}}}"#),
            (#"{"a":{"b":{"c":1}}}"#, #"{"a":{"b":"flat"}}"#),
            (#"{"a":"flat"}"#, #"{"a":{"b":{"c":1}}}"#),
            (#"{"a":{"b":1},"x":[{"y":1}]}"#, #"{"x":[{"y":2}]}"#),
            (#"{"a":1}"#, #"[1,2]"#),
            (#"[1,2]"#, #"{"a":{"b":{}}}"#),
            (#""text""#, #"{"a":1}"#),
            (#"{"a":{}}"#, #"{"a":{"b":{}}}"#),
        ]
        for (a, b) in pairs {
            XCTAssertEqual(MergePatch.apply(MergePatch.diff(from: json(a), to: json(b)), to: json(a)), json(b),
                           "\(a) -> \(b)")
        }
    }

    func testDiffRoundTripsOnGeneratedDocuments() {
        var random = SeededGenerator(seed: 7386)
        for round in 0..<500 {
            let a = Self.randomObject(depth: 3, using: &random)
            let b = round.isMultiple(of: 2) ? Self.mutate(a, using: &random) : Self.randomObject(depth: 3, using: &random)
            let patch = MergePatch.diff(from: a, to: b)
            XCTAssertEqual(MergePatch.apply(patch, to: a), b, "round \(round): \(a) -> \(b) via \(patch)")
            XCTAssertEqual(MergePatch.apply(MergePatch.diff(from: b, to: a), to: b), a, "round \(round) backwards")
        }
    }

    func testDiffRoundTripsOnGeneratedEntries() {
        var random = SeededGenerator(seed: 5869)
        for round in 0..<1000 {
            let a = Self.randomEntry(using: &random)
            let b = Self.randomEntry(using: &random, basedOn: a)
            let patched = MergePatch.apply(MergePatch.diff(from: a.jsonValue, to: b.jsonValue), to: a.jsonValue)
            XCTAssertEqual(Entry(jsonValue: patched), b, "round \(round)")
        }
    }

    // MARK: Generators (no null members: merge patches cannot express them)

    static func randomScalar(using random: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return .bool(Bool.random(using: &random))
        case 1: return .number(Double(Int.random(in: -1000...1000, using: &random)))
        case 2: return .string(randomWord(using: &random))
        default: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in
            .number(Double(Int.random(in: 0...9, using: &random))) })
        }
    }

    static func randomWord(using random: inout SeededGenerator) -> String {
        String((0..<Int.random(in: 0...6, using: &random)).map { _ in "abcdé€z".randomElement(using: &random)! })
    }

    static func randomObject(depth: Int, using random: inout SeededGenerator) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...5, using: &random) {
            let name = ["a", "b", "c", "d", "e", "f"].randomElement(using: &random)!
            members[name] = depth > 0 && Bool.random(using: &random)
                ? randomObject(depth: depth - 1, using: &random) : randomScalar(using: &random)
        }
        return .object(members)
    }

    /// A copy of `value` with a few members added, removed, replaced or changed deep inside.
    static func mutate(_ value: JSONValue, using random: inout SeededGenerator) -> JSONValue {
        guard case .object(var members) = value else { return randomScalar(using: &random) }
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let name = ["a", "b", "c", "d", "e", "f", "g"].randomElement(using: &random)!
            switch Int.random(in: 0..<4, using: &random) {
            case 0: members.removeValue(forKey: name)
            case 1: members[name] = randomScalar(using: &random)
            case 2: members[name] = randomObject(depth: 2, using: &random)
            default: members[name] = mutate(members[name] ?? .object([:]), using: &random)
            }
        }
        return .object(members)
    }

    static func randomEntry(using random: inout SeededGenerator, basedOn base: Entry? = nil) -> Entry {
        func text(_ current: String?) -> String {
            if let current, Bool.random(using: &random) { return current }
            return randomWord(using: &random)
        }
        let totp: String? = Int.random(in: 0..<3, using: &random) == 0 ? nil : text(base?.totp)
        return Entry(username: text(base?.username), password: text(base?.password), notes: text(base?.notes),
                     totp: totp)
    }
}
