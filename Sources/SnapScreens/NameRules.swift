import SnapBytes

/// A player's name in a screen's words: why one cannot be used, and the next free variant.
public enum NameRules {
    /// Whether a name field takes this character as typed (spaces are checked where they sit
    /// only when the name is used: `problem(_:)`).
    public static func mayHold(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || PlayerName.isValid(String(Character(scalar)))
    }

    /// A character a name may not hold, in words: the character itself when it can be
    /// shown, else what kind it is (never a code point like U+0007).
    public static func forbiddenCharacterSentence(_ scalar: Unicode.Scalar) -> String {
        let what: String
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned: what = "an invisible control character"
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: what = "that kind of space"
        default: what = "\u{201C}\(Character(scalar))\u{201D}"
        }
        return "A name cannot hold \(what): use letters, digits, spaces and - _ . '"
    }

    /// Why `name` cannot be a player's name, in words; nil if it can.
    public static func problem(_ name: String) -> String? {
        switch PlayerName.problem(name) {
        case nil: nil
        case .empty: "Please type a name."
        case .leadingOrTrailingWhitespace: "A name cannot start or end with a space."
        case .consecutiveSpaces: "A name cannot have two spaces in a row."
        case .forbiddenCharacter(let scalar): forbiddenCharacterSentence(scalar)
        case .tooManyCharacters: "A name holds at most \(PlayerName.maxScalars) characters."
        case .tooManyBytes: "That name is too long: use fewer accented or non-Latin letters."
        }
    }

    /// The next name to offer when `name` is taken at a table: "Ann" → "Ann 2" → "Ann 3",
    /// cut to fit a name's 20 characters.
    public static func nextVariant(of name: String) -> String {
        var base = name
        var number = 2
        if let space = name.lastIndex(of: " "), let n = Int(name[name.index(after: space)...]), n >= 1, n < 999_999 {
            base = String(name[..<space])
            number = n + 1
        }
        let suffix = " \(number)"
        var scalars = Array(base.unicodeScalars.prefix(PlayerName.maxScalars - suffix.unicodeScalars.count))
        while scalars.last == " " { scalars.removeLast() }
        var text = String(String.UnicodeScalarView(scalars))
        if text.isEmpty { text = "Player" }
        return text + suffix
    }
}
