/// The rules for a player's name, shared by the wire codec, the host (for its own name
/// and every hello) and the command line.
///
/// A name is 1–20 Unicode scalars and at most 64 bytes of UTF-8; each scalar is a letter
/// (general category L*), a decimal digit (Nd), a space (U+0020) or one of `-_.'`; it
/// neither starts nor ends with whitespace and never has two spaces in a row. Nothing is
/// trimmed or normalized: a name is accepted exactly as given or refused.
public enum PlayerName {
    public static let maxScalars = 20
    public static let maxBytes = 64
    /// The punctuation allowed besides letters, digits and spaces.
    public static let punctuation: Set<Unicode.Scalar> = ["-", "_", ".", "'"]

    /// Returns `name` unchanged if it is a valid player name, else throws the caller's
    /// protocol's `badName` (Snap!'s `validate(_:)` is SnapProtocol's).
    @discardableResult
    public static func validate<Failure: WireFailure>(_ name: String, failing: Failure.Type) throws(Failure) -> String {
        if let problem = problem(name) { throw Failure.badName(problem) }
        return name
    }

    /// Why `name` is not a valid player name, or nil if it is.
    public static func problem(_ name: String) -> NameProblem? {
        let scalars = name.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return .empty }
        let scalarCount = scalars.count
        guard scalarCount <= maxScalars else { return .tooManyCharacters(scalarCount) }
        let byteCount = name.utf8.count
        guard byteCount <= maxBytes else { return .tooManyBytes(byteCount) }
        guard !first.properties.isWhitespace, !last.properties.isWhitespace else {
            return .leadingOrTrailingWhitespace
        }
        var previousWasSpace = false
        for scalar in scalars {
            guard isAllowed(scalar) else { return .forbiddenCharacter(scalar) }
            let isSpace = scalar == " "
            if isSpace && previousWasSpace { return .consecutiveSpaces }
            previousWasSpace = isSpace
        }
        return nil
    }

    /// True if `name` is a valid player name.
    public static func isValid(_ name: String) -> Bool {
        problem(name) == nil
    }

    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == " " || punctuation.contains(scalar) { return true }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber:
            return true
        default:
            return false
        }
    }
}

/// The rules for the free text of a `closing` message: at most 200 bytes of UTF-8 and no
/// control characters (general category Cc, which includes tabs and newlines). It may be
/// empty.
public enum CloseMessage {
    public static let maxBytes = 200

    /// Returns `text` unchanged if it may be sent in a `closing` message, else throws the
    /// caller's protocol's `badCloseMessage` (Snap!'s `validate(_:)` is SnapProtocol's).
    @discardableResult
    public static func validate<Failure: WireFailure>(_ text: String, failing: Failure.Type) throws(Failure) -> String {
        let byteCount = text.utf8.count
        guard byteCount <= maxBytes else { throw Failure.badCloseMessage(.tooLong(bytes: byteCount)) }
        if let control = text.unicodeScalars.first(where: isControl) {
            throw Failure.badCloseMessage(.controlCharacter(control))
        }
        return text
    }

    /// `text` made sendable: each control character becomes a space, and the text is cut
    /// at the last whole scalar that fits in `maxBytes` bytes. For a host building a
    /// message out of an error description or anything else of unknown length.
    public static func fitted(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var byteCount = 0
        for scalar in text.unicodeScalars {
            let replacement: Unicode.Scalar = isControl(scalar) ? " " : scalar
            let length = UTF8.width(replacement)
            guard byteCount + length <= maxBytes else { break }
            byteCount += length
            result.append(replacement)
        }
        return String(result)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
