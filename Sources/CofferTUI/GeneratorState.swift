import CofferCore

/// The password generator panel of the item form.
public struct GeneratorState: Sendable, Equatable {
    public var settings = GeneratorSettings()
    /// The last generated password, shown so the user can take or redraw it.
    public var preview: String?
    public var problem: String?

    public init(settings: GeneratorSettings = GeneratorSettings(), preview: String? = nil) {
        self.settings = settings
        self.preview = preview
    }
}

/// What to generate: characters from chosen classes, or words from the list.
public struct GeneratorSettings: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable { case characters, words }

    public var mode = Mode.characters
    public var length = 20
    public var classes: PasswordGenerator.CharacterClasses = .all
    public var words = 6

    public init(mode: Mode = .characters, length: Int = 20, classes: PasswordGenerator.CharacterClasses = .all,
                words: Int = 6) {
        self.mode = mode
        self.length = length
        self.classes = classes
        self.words = words
    }

    public static let lengthRange = 4...500
    public static let wordsRange = 3...40

    /// Bits of entropy of what these settings generate.
    public var entropyBits: Int {
        switch mode {
        case .characters: return Int(PasswordGenerator.entropyBits(length: length, classes: classes))
        case .words: return words * 11
        }
    }
}
