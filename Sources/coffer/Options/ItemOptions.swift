import ArgumentParser
import CofferCore
import Foundation

/// The item fields `add` and `edit` take.
struct ItemOptions: ParsableArguments {
    @Option(help: "The item's title.") var title: String?
    @Option(help: "The login's username.") var username: String?
    @Option(help: ArgumentHelp("The password; '-' reads it from stdin (on the command line it shows in the process list "
                               + "and shell history: prefer -, --generate or the screen).")) var password: String?
    @Flag(help: "Generate a password (see `coffer generate` for the options below).") var generate = false
    @Option(help: "Generated password length.") var length: Int = 20
    @Option(help: "Generate this many words instead of characters.") var words: Int?
    @Option(help: "An origin (URL or host); repeat for several. On edit, replaces all origins.") var origin: [String] = []
    @Option(help: "A tag; repeat for several. On edit, replaces all tags.") var tag: [String] = []
    @Option(help: "Free-form notes.") var notes: String?
    @Option(help: ArgumentHelp("A TOTP secret or otpauth:// URI; '-' reads it from stdin (on the command line it shows "
                               + "in the process list and shell history).")) var totp: String?
    @Flag(inversion: .prefixedNo, help: "Mark the item disabled (or enabled).") var disabled: Bool?

    func validate() throws {
        if generate && password != nil { throw ValidationError("Give --password or --generate, not both.") }
    }

    /// Replaces a `-` given for `--password` or `--totp` with the value itself: typed without echo
    /// at a terminal, else the next line of stdin (the password's first, then the secret's, then a
    /// passphrase if stdin carries one too). Call before anything else reads stdin.
    mutating func readStandardInput() throws {
        if password == "-" { password = try Self.secretLine(prompt: "Password: ") }
        if totp == "-" { totp = try Self.secretLine(prompt: "TOTP secret: ") }
    }

    private static func secretLine(prompt: String) throws -> String {
        let line = isatty(STDIN_FILENO) != 0 ? try Terminal.readHidden(prompt: prompt) : try StandardInputLines.shared.next()
        return line.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Refuses a TOTP secret that yields no code (exit 5), before the passphrase is asked.
    /// (Not in `validate()`: ArgumentParser reports its errors as usage mistakes, exit 2.)
    func checkTOTP() throws {
        guard let totp, !totp.isEmpty else { return }
        do {
            _ = try TOTP(parsing: totp)
        } catch {
            throw CoreError.invalidTOTP(error)
        }
    }

    func generatedPassword() throws -> String? {
        guard generate else { return password }
        do {
            if let words { return try PasswordGenerator.words(count: words) }
            return try PasswordGenerator.characters(length: length)
        } catch let problem as PasswordGenerator.Problem {
            throw ValidationError(problem.description)
        }
    }

    /// Applies the given options to `item`; unset options leave fields as they are.
    func apply(to item: inout Item) throws {
        if let title { item.title = title }
        if let username { item.entry.username = username }
        if let password = try generatedPassword() { item.entry.password = password }
        if !origin.isEmpty { item.origins = origin }
        if !tag.isEmpty { item.tags = tag }
        if let notes { item.entry.notes = notes }
        if let totp { item.entry.totp = totp.isEmpty ? nil : totp }
        if let disabled { item.disabled = disabled }
    }
}
