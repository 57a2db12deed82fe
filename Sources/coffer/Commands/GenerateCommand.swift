import ArgumentParser
import CofferCore
import Foundation

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "generate", abstract: "Print a random password.")

    @Option(help: "Number of characters (4–500).") var length: Int = 20
    @Option(help: "Generate this many words (3–40) instead of characters.") var words: Int?
    @Option(help: "Word separator.") var separator: String = "-"
    @Flag(help: "Leave out symbols.") var noSymbols = false
    @Flag(help: "Leave out digits.") var noDigits = false
    @Flag(help: "Leave out uppercase letters.") var noUppercase = false
    @Flag(help: "Leave out lowercase letters.") var noLowercase = false

    func run() throws {
        do {
            let password = try generated()
            Output.rawLine(password)
            // For a person at a terminal only: a pipe or a script gets the password alone.
            if isatty(STDERR_FILENO) != 0 { Terminal.write(StrengthLine.text(for: PassphraseStrength.estimate(password))) }
        } catch let problem as PasswordGenerator.Problem {
            throw ValidationError(problem.description)
        }
    }

    private func generated() throws -> String {
        if let words { return try PasswordGenerator.words(count: words, separator: separator) }
        var classes = PasswordGenerator.CharacterClasses.all
        if noSymbols { classes.remove(.symbols) }
        if noDigits { classes.remove(.digits) }
        if noUppercase { classes.remove(.uppercase) }
        if noLowercase { classes.remove(.lowercase) }
        return try PasswordGenerator.characters(length: length, classes: classes)
    }
}
