import Foundation
import XCTest

/// The code's comments cite `docs/architecture.md` by section (`architecture §9`): every `§N` in
/// the sources, the tests and the top-level documents must name a `## N.` heading there, and no
/// file may still point at the design notes the repository does not hold (`DESIGN §n`, the seeds
/// by number). Each failure names the file and line.
final class ArchitectureReferenceTests: XCTestCase {
    /// The repository's root: this file is `Tests/CofferCoreTests/ArchitectureReferenceTests.swift`.
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Top-level files scanned besides every `.swift` file under `Sources` and `Tests`.
    private static let documents = ["CONTRIBUTING.md", "README.md", "Package.swift", "Makefile"]

    func testDocumentHasTheNumberedSections() throws {
        let sections = try Self.sections()
        for number in 1...13 {
            XCTAssertTrue(sections.contains(number), "docs/architecture.md has no heading \"## \(number). …\"")
        }
    }

    func testEverySectionReferenceHasAHeading() throws {
        let sections = try Self.sections()
        var references = 0
        for (path, lines) in try Self.scannedFiles() {
            for (index, line) in lines.enumerated() {
                for number in Self.sectionNumbers(in: line) {
                    references += 1
                    XCTAssertTrue(sections.contains(number),
                                  "\(path):\(index + 1): §\(number) has no heading in docs/architecture.md: \(Self.trimmed(line))")
                }
            }
        }
        XCTAssertGreaterThan(references, 0, "no § reference found: the scan looked in the wrong place")
    }

    func testNoReferenceToTheDesignNotesOrSeedsByNumber() throws {
        for (path, lines) in try Self.scannedFiles() {
            for (index, line) in lines.enumerated() where Self.citesOutside(line) {
                XCTFail("\(path):\(index + 1): cites a document outside the repository (say `architecture §N`, "
                        + "or the source by its subject): \(Self.trimmed(line))")
            }
        }
    }

    // MARK: - Scanning

    /// The numbers of the document's `## N.` headings.
    private static func sections() throws -> Set<Int> {
        let text = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var numbers = Set<Int>()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where line.hasPrefix("## ") {
            let digits = line.dropFirst(3).prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, line.dropFirst(3 + digits.count).hasPrefix("."), let number = Int(digits) {
                numbers.insert(number)
            }
        }
        return numbers
    }

    /// Every scanned file as (path from the root, lines), this file left out: it spells the
    /// patterns it looks for.
    private static func scannedFiles() throws -> [(path: String, lines: [String])] {
        var urls: [URL] = []
        for directory in ["Sources", "Tests"] {
            let top = root.appendingPathComponent(directory)
            guard let walk = FileManager.default.enumerator(at: top, includingPropertiesForKeys: nil) else {
                XCTFail("cannot list \(top.path)")
                continue
            }
            for case let url as URL in walk where url.pathExtension == "swift" { urls.append(url) }
        }
        for name in documents {
            let url = root.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path) { urls.append(url) }
        }
        XCTAssertGreaterThan(urls.count, 100, "too few files under \(root.path): is the root right?")
        let rootPath = root.standardizedFileURL.path + "/"
        return try urls.filter { $0.lastPathComponent != "ArchitectureReferenceTests.swift" }
            .sorted { $0.path < $1.path }
            .map { url in
                let data = try Data(contentsOf: url)
                let text = String(decoding: data, as: UTF8.self)
                var path = url.standardizedFileURL.path
                if path.hasPrefix(rootPath) { path.removeFirst(rootPath.count) }
                return (path, text.components(separatedBy: "\n"))
            }
    }

    /// The section numbers `line` cites: `§N` or `§ N`, except a section of an RFC (`RFC 7386 §2`).
    private static func sectionNumbers(in line: String) -> [Int] {
        let characters = Array(line)
        var numbers: [Int] = []
        for (index, character) in characters.enumerated() where character == "§" {
            var start = index + 1
            if start < characters.count, characters[start] == " " { start += 1 }
            let digits = characters[start...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let number = Int(String(digits)), !isRFCSection(characters[..<index]) else { continue }
            numbers.append(number)
        }
        return numbers
    }

    /// Whether the text before a `§` ends with `RFC <number> `.
    private static func isRFCSection(_ before: ArraySlice<Character>) -> Bool {
        guard before.last == " " else { return false }
        let withoutSpace = before.dropLast()
        let digits = withoutSpace.reversed().prefix { $0.isASCII && $0.isNumber }
        return !digits.isEmpty && String(withoutSpace.dropLast(digits.count)).hasSuffix("RFC ")
    }

    /// `DESIGN §…`, or a seed by number (`seed 004`, `Seed 001's`).
    private static func citesOutside(_ line: String) -> Bool {
        if line.contains("DESIGN §") { return true }
        let lowered = line.lowercased()
        guard lowered.contains("seed 00") else { return false }
        let characters = Array(lowered)
        let seed = Array("seed 00")
        guard characters.count > seed.count else { return false }
        for start in 0..<(characters.count - seed.count) where Array(characters[start..<(start + seed.count)]) == seed {
            if characters[start + seed.count].isASCII && characters[start + seed.count].isNumber { return true }
        }
        return false
    }

    private static func trimmed(_ line: String) -> String {
        String(line.trimmingCharacters(in: .whitespaces).prefix(120))
    }
}
