import XCTest
@testable import CofferCore

/// The list's second column by kind: never a secret field.
final class ListedNameTests: XCTestCase {
    func testEachKindShowsItsNameAndNoSecret() {
        let card = Entry(kind: "card", username: "", password: "", notes: "", totp: nil,
                         fields: ["cardholder": "Ann Example", "number": "4111111111111111", "pin": "1234"], custom: [])
        XCTAssertEqual(ItemKind.listedName(of: card), "Ann Example")
        let identity = Entry(kind: "identity", username: "", password: "", notes: "", totp: nil,
                             fields: ["first_name": "Ann", "last_name": "Example", "passport": "X1"], custom: [])
        XCTAssertEqual(ItemKind.listedName(of: identity), "Ann Example")
        let emailOnly = Entry(kind: "identity", username: "", password: "", notes: "", totp: nil,
                              fields: ["email": "ann@example.org", "national_id": "N1"], custom: [])
        XCTAssertEqual(ItemKind.listedName(of: emailOnly), "ann@example.org")
        let secretOnly = Entry(kind: "card", username: "", password: "", notes: "", totp: nil, fields: ["number": "4111"], custom: [])
        XCTAssertEqual(ItemKind.listedName(of: secretOnly), "")
        let login = Entry(kind: "login", username: "ann", password: "pw", notes: "", totp: nil, fields: [:], custom: [])
        XCTAssertEqual(ItemKind.listedName(of: login), "ann")
        let newer = Entry(kind: "vehicle", username: "", password: "", notes: "", totp: nil, fields: ["plate": "AB-123"], custom: [])
        XCTAssertEqual(ItemKind.listedName(of: newer), "", "an unknown kind's fields are not guessed at")
    }
}
