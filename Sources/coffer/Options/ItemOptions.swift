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
    @Option(name: .customLong("totp-qr"), help: ArgumentHelp(
        "A PNG image (at most 4 MiB) of a QR code holding an otpauth://totp/ URI: sets the TOTP from it.",
        valueName: "file.png")) var totpImage: String?
    @Flag(inversion: .prefixedNo, help: "Mark the item disabled (or enabled).") var disabled: Bool?
    @Option(help: ArgumentHelp("The kind of item: \(ItemKind.known.map(\.name).joined(separator: ", ")) (add only; "
                               + "default login).", valueName: "kind")) var kind: String?
    @Option(name: .customLong("field"), help: ArgumentHelp(
        "LABEL=VALUE: a field of the item's kind by name or label (a card's number, an identity's email), else a "
        + "custom text field; repeat for several; a VALUE of '-' reads it from stdin.", valueName: "label=value"))
    var fieldValues: [String] = []
    @Option(name: .customLong("hidden-field"), help: ArgumentHelp(
        "LABEL=VALUE: like --field, but a custom field it makes is hidden (masked, left out of show without --reveal).",
        valueName: "label=value"))
    var hiddenFieldValues: [String] = []
    @Option(name: .customLong("remove-field"), help: ArgumentHelp("LABEL: clears a field of the kind or removes a custom "
                                                                  + "field (edit).", valueName: "label"))
    var removedFields: [String] = []

    func validate() throws {
        if generate && password != nil { throw ValidationError("Give --password or --generate, not both.") }
        if totp != nil && totpImage != nil { throw ValidationError("Give --totp or --totp-qr, not both.") }
        if let kind, ItemKind.named(kind) == nil {
            throw ValidationError("Unknown kind “\(kind)”; the kinds are \(ItemKind.known.map(\.name).joined(separator: ", ")).")
        }
        for assignment in fieldValues + hiddenFieldValues where Self.split(assignment) == nil {
            throw ValidationError("A field is given as LABEL=VALUE, with a label before the '=': “\(assignment)” is not.")
        }
    }

    /// `LABEL=VALUE` split at the first `=`; nil without a label.
    static func split(_ assignment: String) -> (label: String, value: String)? {
        guard let equals = assignment.firstIndex(of: "=") else { return nil }
        let label = assignment[..<equals].trimmingCharacters(in: .whitespaces)
        guard !label.isEmpty else { return nil }
        return (label, String(assignment[assignment.index(after: equals)...]))
    }

    /// Replaces a `-` given for `--password` or `--totp` with the value itself: typed without echo
    /// at a terminal, else the next line of stdin (the password's first, then the secret's, then a
    /// passphrase if stdin carries one too). Call before anything else reads stdin.
    mutating func readStandardInput() throws {
        if password == "-" { password = try Self.secretLine(prompt: "Password: ") }
        if totp == "-" { totp = try Self.secretLine(prompt: "TOTP secret: ") }
        for (index, assignment) in fieldValues.enumerated() {
            guard let (label, value) = Self.split(assignment), value == "-" else { continue }
            fieldValues[index] = "\(label)=\(try Self.secretLine(prompt: "\(label): "))"
        }
        for (index, assignment) in hiddenFieldValues.enumerated() {
            guard let (label, value) = Self.split(assignment), value == "-" else { continue }
            hiddenFieldValues[index] = "\(label)=\(try Self.secretLine(prompt: "\(label): "))"
        }
    }

    private static func secretLine(prompt: String) throws -> String {
        let line = isatty(STDIN_FILENO) != 0 ? try Terminal.readHidden(prompt: prompt) : try StandardInputLines.shared.next()
        return line.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Replaces `--totp-qr FILE` with the `otpauth://totp/` URI its QR code holds, or refuses the
    /// image (exit 5): over 4 MiB, not a PNG, no QR code or several, or no TOTP URI in it. Before
    /// the passphrase is asked.
    mutating func readTOTPImage() throws {
        guard let path = totpImage else { return }
        var data: Data
        do {
            data = try InputFile.read(path, limit: QRCodeImage.fileLimit)
        } catch {
            throw CoreError.invalidTOTPImage(path: path, reason: InputFile.reason(error, path: path))
        }
        defer { wipe(&data) }
        totp = try TOTP.uri(fromQRCodePNG: data, path: path)
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
        if let kind { item.entry.kind = kind }
        let isLogin = item.entry.kind == Entry.loginKind
        let loginOnly: [(String, Bool)] = [("--username", username != nil), ("--password", password != nil),
                                           ("--generate", generate),
                                           (totpImage != nil ? "--totp-qr" : "--totp", totp != nil)]
        if !isLogin, let (option, _) = loginOnly.first(where: \.1) {
            let kindName = ItemKind.named(item.entry.kind)?.label.lowercased() ?? "“\(item.entry.kind)”"
            throw ValidationError("\(option) is a login's; for a \(kindName), give its fields with --field or --hidden-field.")
        }
        for label in removedFields { try Self.remove(label, from: &item.entry) }
        for (assignment, hidden) in orderedAssignments() {
            if let (label, value) = Self.split(assignment) { try Self.set(label, value, hidden: hidden, in: &item.entry) }
        }
        if let title { item.title = title }
        if let username { item.entry.username = username }
        if let password = try generatedPassword() { item.entry.password = password }
        if !origin.isEmpty { item.origins = origin }
        if !tag.isEmpty { item.tags = tag }
        if let notes { item.entry.notes = notes }
        if let totp { item.entry.totp = totp.isEmpty ? nil : totp }
        if let disabled { item.disabled = disabled }
    }

    /// `--field` and `--hidden-field` values in the order they were typed, so new custom fields
    /// keep it (the parser gives each option's values apart). The order comes from the command
    /// line; when it cannot be matched to the values (a value that is itself `--field`, say), the
    /// `--field` values come first.
    func orderedAssignments(arguments: [String] = CommandLine.arguments) -> [(String, hidden: Bool)] {
        var order: [Bool] = []
        for argument in arguments.prefix(while: { $0 != "--" }) {
            if argument == "--field" || argument.hasPrefix("--field=") { order.append(false) }
            if argument == "--hidden-field" || argument.hasPrefix("--hidden-field=") { order.append(true) }
        }
        let plain = fieldValues.map { ($0, hidden: false) }, hidden = hiddenFieldValues.map { ($0, hidden: true) }
        guard order.count == plain.count + hidden.count, order.filter({ $0 }).count == hidden.count else { return plain + hidden }
        var (nextPlain, nextHidden) = (0, 0)
        return order.map { isHidden in
            defer { if isHidden { nextHidden += 1 } else { nextPlain += 1 } }
            return isHidden ? hidden[nextHidden] : plain[nextPlain]
        }
    }

    /// A field of the entry's kind (by name or label), else the custom field with that label
    /// (case-insensitive), else a new custom field: text, or hidden with `hidden`. A yes-or-no
    /// field takes only the spellings `FlagValue` names: `confirm=maybe` was stored, and the agent
    /// then did not confirm.
    static func set(_ label: String, _ value: String, hidden: Bool, in entry: inout Entry) throws {
        if let field = ItemKind.named(entry.kind)?.field(label) {
            if field.format == .flag {
                guard let flag = FlagValue.normalized(value) else {
                    throw UsageError("“\(field.label)” is yes or no: one of \(FlagValue.onSpellings.joined(separator: ", ")) or "
                                     + "\(FlagValue.offSpellings.joined(separator: ", ")), not “\(TerminalText.line(value))”.")
                }
                entry[field: field.name] = flag
                return
            }
            entry[field: field.name] = value
        } else if let index = entry.custom.firstIndex(where: { $0.label.lowercased() == label.lowercased() }) {
            entry.custom[index].value = value
            if hidden { entry.custom[index].type = CustomField.FieldType.hidden.rawValue }
        } else {
            entry.custom.append(CustomField(label: label, value: value, type: hidden ? .hidden : .text))
        }
    }

    static func remove(_ label: String, from entry: inout Entry) throws {
        if let field = ItemKind.named(entry.kind)?.field(label) {
            entry[field: field.name] = nil
        } else if let index = entry.custom.firstIndex(where: { $0.label.lowercased() == label.lowercased() }) {
            entry.custom.remove(at: index)
        } else {
            throw ValidationError("The item has no field “\(TerminalText.line(label))” to remove.")
        }
    }
}
