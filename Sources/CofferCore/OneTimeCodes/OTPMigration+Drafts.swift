import Foundation

extension OTPMigration {
    /// The import drafts of a Google Authenticator export: a text file of `otpauth-migration://`
    /// links, or a PNG image of one of its QR codes (told by PNG's signature). Each TOTP account
    /// becomes a login (title: the issuer, else the name; username: the name; its TOTP). An account
    /// Coffer cannot compute (counter-based HOTP, MD5) is returned apart, by title, for the command
    /// to say it was skipped.
    public static func drafts(_ data: Data, file: String) throws(CoreError) -> (drafts: [ImportDraft], skipped: [String]) {
        let accounts: [Account]
        do {
            if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
                guard data.count <= QRCodeImage.fileLimit else {
                    throw Problem("the image is over \(QRCodeImage.fileLimit / 1_048_576) MiB")
                }
                var payload = try QRCodeImage.payload(ofPNG: data)
                defer { wipe(&payload) }
                accounts = try Self.accounts(inLink: String(decoding: payload, as: UTF8.self))
            } else {
                guard let text = String(validating: data, as: UTF8.self) else { throw Problem("it is not UTF-8 text") }
                accounts = try Self.accounts(inLinks: text)
            }
        } catch let problem as Problem {
            throw .invalidImport(reason: "\(TerminalText.line(file)): \(problem.description)")
        } catch let problem as QRCodeImage.Problem {
            throw .invalidImport(reason: "\(TerminalText.line(file)): \(problem.description)")
        } catch {
            throw .invalidImport(reason: "\(TerminalText.line(file)): \(error)")
        }
        return drafts(accounts)
    }

    /// Accounts as drafts, and the titles of those skipped.
    public static func drafts(_ accounts: [Account]) -> (drafts: [ImportDraft], skipped: [String]) {
        var drafts: [ImportDraft] = []
        var skipped: [String] = []
        for (index, account) in accounts.enumerated() {
            guard let uri = account.uri else {
                skipped.append(account.title)
                continue
            }
            var draft = ImportDraft(place: "account \(index + 1)")
            draft.title = account.title.isEmpty ? "Account \(index + 1)" : account.title
            draft.username = account.username
            draft.totp = uri
            drafts.append(draft)
        }
        return (drafts, skipped)
    }
}
