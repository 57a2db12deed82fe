import Foundation
import XCTest
@testable import CofferCore

/// The pure parts of `read`, `run`, `inject` and `git-credential`: references, the dotenv dialect,
/// templates, the output masker and the git origin rules, as tables.
final class SecretsParsingTests: XCTestCase {
    func testReferences() throws {
        XCTAssertEqual(try SecretReference.parse("coffer://GitHub/password"), SecretReference(name: "GitHub", field: "password"))
        XCTAssertEqual(try SecretReference.parse("coffer://My Bank/API token"), SecretReference(name: "My Bank", field: "API token"))
        XCTAssertEqual(try SecretReference.parse("coffer://a%2Fb/c/password"), SecretReference(name: "a/b/c", field: "password"))
        XCTAssertEqual(try SecretReference.parse("coffer://50%25 off/pin"), SecretReference(name: "50% off", field: "pin"))
        XCTAssertNil(try SecretReference.parse("https://github.com"))
        XCTAssertNil(try SecretReference.parse(" coffer://x/y"))
        for malformed in ["coffer://", "coffer://name", "coffer://name/", "coffer:///password", "coffer://50% off/pin",
                          "coffer://a\u{1B}[2J/password", "coffer://a/pass\nword"] {
            XCTAssertThrowsError(try SecretReference.parse(malformed), malformed)
        }
    }

    func testDotenvAcceptsItsDialect() throws {
        let text = """
            # comment
              export A=coffer://x/password
            B='single $kept "as is"'
            C="double \\"q\\" \\$ \\\\ \\n end"   # trailing comment
            D=
            E=bare#notacomment\r
            """
        let parsed = try DotenvFile.parse(Data(text.utf8))
        XCTAssertEqual(parsed.map(\.key), ["A", "B", "C", "D", "E"])
        XCTAssertEqual(parsed.map(\.value), ["coffer://x/password", "single $kept \"as is\"", "double \"q\" $ \\ \n end", "",
                                             "bare#notacomment"])
        XCTAssertEqual(parsed.map(\.line), [2, 3, 4, 5, 6])
    }

    func testDotenvRefusesAnythingElseWithItsLine() {
        let refused: [(String, Int)] = [
            ("A=1\nB=two words", 2), ("A=1\nA=2", 2), ("A = 1", 1), ("9A=1", 1), ("A", 1), ("=1", 1),
            ("A=\"open", 1), ("A='open", 1), ("A='x'y", 1), ("A=\"\\q\"", 1), ("A=$HOME", 1), ("A=\"$HOME\"", 1),
            ("A=a\\b", 1), ("A=\u{1B}x", 1), ("x\ny\nA-B=1", 1), ("ok=1\n\nA=\u{7}", 3),
        ]
        for (text, line) in refused {
            XCTAssertThrowsError(try DotenvFile.parse(Data(text.utf8)), text) { error in
                XCTAssertEqual((error as? DotenvFile.Problem)?.line, line, text)
            }
        }
        XCTAssertThrowsError(try DotenvFile.parse(Data([0x41, 0x3D, 0xFF]))) { error in
            XCTAssertEqual((error as? DotenvFile.Problem)?.line, 1)
        }
    }

    func testTemplates() throws {
        let template = try SecretTemplate(parsing: "a {{ coffer://x/password }} b {{coffer://y/user%20name}} {{ other }} {{")
        XCTAssertEqual(template.references, [SecretReference(name: "x", field: "password"), SecretReference(name: "y", field: "user name")])
        let values = [SecretReference(name: "x", field: "password"): "{{ coffer://y/user%20name }}",
                      SecretReference(name: "y", field: "user name"): "ann"]
        // A value that reads like a reference is put in as text, never expanded again.
        XCTAssertEqual(template.rendered(with: values), "a {{ coffer://y/user%20name }} b ann {{ other }} {{")
        for (text, line) in [("one\ntwo {{ coffer://x/password\n}}", 2), ("{{ coffer://x }}", 1), ("\n\n{{coffer://x/y", 3)] {
            XCTAssertThrowsError(try SecretTemplate(parsing: text), text) { error in
                XCTAssertEqual((error as? SecretTemplate.Problem)?.line, line, text)
            }
        }
    }

    func testMaskerCatchesValuesSplitAtEveryPoint() {
        let secrets = ["hunter2-secret", "hunter2", "tok\nen"]
        let text = Array("a hunter2-secret b hunter2 c hunter2-secre d tok\nen e hunter".utf8)
        let expected = "a <concealed by coffer> b <concealed by coffer> c <concealed by coffer>-secre d <concealed by coffer> e hunter"
        for first in 0...text.count {
            for second in first...text.count {
                var masker = OutputMasker(values: secrets)
                var output = masker.feed(text[..<first])
                output += masker.feed(text[first..<second])
                output += masker.feed(text[second...])
                output += masker.finish()
                XCTAssertEqual(String(decoding: output, as: UTF8.self), expected, "split at \(first), \(second)")
            }
        }
        // Nothing that cannot start a value is held back (a prompt shows at once).
        var masker = OutputMasker(values: secrets)
        XCTAssertEqual(masker.feed(Array("Password: ".utf8)), Array("Password: ".utf8))
        XCTAssertEqual(masker.feed(Array("hun".utf8)), [])
        XCTAssertEqual(masker.finish(), Array("hun".utf8))
        var empty = OutputMasker(values: ["", "x"])
        XCTAssertEqual(String(decoding: empty.feed(Array("axb".utf8)), as: UTF8.self), "a<concealed by coffer>b")
    }

    func testGitCredentialMessages() throws {
        let message = try GitCredentialMessage(parsing: Data("protocol=https\nhost=example.org:8443\npath=a/b.git\nusername=ann\nwwwauth[]=Basic x\nwwwauth[]=y\npassword=p=q\n\nhost=ignored\n".utf8))
        XCTAssertEqual(message, GitCredentialMessage(protocolName: "https", host: "example.org:8443", path: "a/b.git", username: "ann",
                                                     password: "p=q"))
        XCTAssertThrowsError(try GitCredentialMessage(parsing: Data("host=a\nhost=b\n".utf8)))
        XCTAssertThrowsError(try GitCredentialMessage(parsing: Data("protocol=https\nnot a pair\n".utf8)))
        XCTAssertThrowsError(try GitCredentialMessage(parsing: Data(repeating: 0x61, count: GitCredentialMessage.sizeLimit + 1)))
        XCTAssertEqual(GitCredentialMessage.answer(username: "ann", password: "p w"), "username=ann\npassword=p w\n")
        for bad in ["a\nhost=evil.org", "a\rb", "a\0b"] {
            XCTAssertNil(GitCredentialMessage.answer(username: "ann", password: bad))
            XCTAssertNil(GitCredentialMessage.answer(username: bad, password: "p"))
        }
    }

    func testOriginsServeOnlyTheirProtocolHostAndPath() throws {
        func request(_ protocolName: String, _ host: String, _ path: String = "") -> CredentialOrigin {
            CredentialOrigin(protocolName: protocolName, host: host, path: path)!
        }
        func serves(_ origin: String, _ wanted: CredentialOrigin) -> Int? {
            CredentialOrigin(origin: origin)?.specificity(serving: wanted)
        }
        let github = request("https", "github.com")
        XCTAssertEqual(serves("github.com", github), 0)
        XCTAssertEqual(serves("https://GitHub.com/", github), 0)
        XCTAssertEqual(serves("https://github.com:443", github), 0)
        XCTAssertEqual(serves("https://github.com", request("https", "github.com:443")), 0)
        XCTAssertNil(serves("github.com", request("http", "github.com")), "a bare host is https only")
        XCTAssertNil(serves("http://github.com", github))
        XCTAssertNil(serves("github.com", request("https", "github.com.evil.org")))
        XCTAssertNil(serves("github.com", request("https", "evil-github.com")))
        XCTAssertNil(serves("github.com", request("https", "gist.github.com")))
        XCTAssertNil(serves("https://github.com:8443", github))
        XCTAssertNil(serves("https://github.com", request("https", "github.com:8443")))
        XCTAssertNil(serves("https://github.com@evil.org", github), "the host is after the @")
        XCTAssertEqual(serves("https://me@github.com", github), 0)
        XCTAssertEqual(serves("http://127.0.0.1:8080", request("http", "127.0.0.1:8080", "repo.git")), 0)
        XCTAssertEqual(serves("http://[::1]:8080/x", request("http", "[::1]:8080", "x/y")), 1)
        // A path limits the origin to requests below it, whole segments only.
        let team = "https://git.example.org/team"
        XCTAssertEqual(serves(team, request("https", "git.example.org", "team/repo.git")), 4)
        XCTAssertEqual(serves(team, request("https", "git.example.org", "/team/")), 4)
        XCTAssertNil(serves(team, request("https", "git.example.org", "teamster/repo.git")))
        XCTAssertNil(serves(team, request("https", "git.example.org", "other/team/repo.git")))
        XCTAssertNil(serves(team, request("https", "git.example.org")), "no path from git: only origins without one")
        XCTAssertNil(CredentialOrigin(protocolName: "https", host: "", path: ""))
        XCTAssertNil(CredentialOrigin(origin: "https://"))
    }
}
