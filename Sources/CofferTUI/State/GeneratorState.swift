import CofferCore

/// The password generator panel of the item form.
struct GeneratorState: Sendable, Equatable {
    var settings = GeneratorSettings()
    /// The last generated password, shown so the user can take or redraw it.
    var preview: String?
    var problem: String?

    init(settings: GeneratorSettings = GeneratorSettings(), preview: String? = nil) {
        self.settings = settings
        self.preview = preview
    }
}

/// What to generate: characters from chosen classes, or words from the list.
struct GeneratorSettings: Sendable, Equatable {
    enum Mode: String, Sendable, Equatable { case characters, words }

    var mode = Mode.characters
    var length = 20
    var classes: PasswordGenerator.CharacterClasses = .all
    var words = 6

    init(mode: Mode = .characters, length: Int = 20, classes: PasswordGenerator.CharacterClasses = .all,
                words: Int = 6) {
        self.mode = mode
        self.length = length
        self.classes = classes
        self.words = words
    }

    static let lengthRange = 4...500
    static let wordsRange = 3...40

    /// Bits of entropy of what these settings generate.
    var entropyBits: Int {
        switch mode {
        case .characters: return Int(PasswordGenerator.entropyBits(length: length, classes: classes))
        case .words: return words * 11
        }
    }
}
