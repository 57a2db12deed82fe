import ArgumentParser
import CofferCore

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
            if let words {
                print(try PasswordGenerator.words(count: words, separator: separator))
                return
            }
            var classes = PasswordGenerator.CharacterClasses.all
            if noSymbols { classes.remove(.symbols) }
            if noDigits { classes.remove(.digits) }
            if noUppercase { classes.remove(.uppercase) }
            if noLowercase { classes.remove(.lowercase) }
            print(try PasswordGenerator.characters(length: length, classes: classes))
        } catch let problem as PasswordGenerator.Problem {
            throw ValidationError(problem.description)
        }
    }
}
