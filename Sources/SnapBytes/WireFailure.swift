/// What a decoder's error type must be able to say about bytes that break the rules every
/// frame, field and name here keeps: Snap!'s `ProtocolError` and Story's `StoryWireError`
/// each have these cases (an enum case is the witness), so the readers below throw each
/// protocol's own error and this module knows no game.
public protocol WireFailure: Error {
    /// The names of the count fields a protocol checks (`ByteReader.count8`).
    associatedtype Counted

    static func frameTooLong(length: UInt32) -> Self
    static func frameTooShort(length: UInt32) -> Self
    static var badMagic: Self { get }
    static func sequenceGap(expected: UInt32, got: UInt32) -> Self
    static func truncatedPayload(type: UInt8) -> Self
    static func trailingBytes(type: UInt8, count: Int) -> Self
    static func countOutOfRange(_ what: Counted, count: Int, allowed: ClosedRange<Int>) -> Self
    static var invalidUTF8: Self { get }
    static func badName(_ problem: NameProblem) -> Self
    static func badCloseMessage(_ problem: CloseMessageProblem) -> Self
}

/// The words of the failures every protocol shares, written once: they travel in closing
/// messages and replies, so Snap! and Story say them alike.
public enum WireText {
    public static func frameTooLong(_ length: UInt32) -> String {
        "frame length \(length) is over the limit of \(Frame.maxBodyLength) bytes"
    }
    public static func frameTooShort(_ length: UInt32) -> String {
        "frame length \(length) is under the minimum of \(Frame.minBodyLength) bytes"
    }
    public static let badMagic = "frame does not start with SNAP"
    public static func sequenceGap(expected: UInt32, got: UInt32) -> String {
        "sequence number \(got) where \(expected) was expected"
    }
    public static func unknownMessageType(_ type: UInt8) -> String { "unknown message type \(hex(type))" }
    public static func truncatedPayload(type: UInt8) -> String { "message type \(hex(type)) is truncated" }
    public static func trailingBytes(type: UInt8, count: Int) -> String {
        "message type \(hex(type)) has \(count) unexpected trailing byte\(count == 1 ? "" : "s")"
    }
    public static func countOutOfRange(_ what: String, count: Int, allowed: ClosedRange<Int>) -> String {
        "\(what) \(count) is outside \(allowed.lowerBound)–\(allowed.upperBound)"
    }
    public static let invalidUTF8 = "text is not valid UTF-8"
    public static func badName(_ problem: NameProblem) -> String { "bad player name: \(problem)" }
    public static func badCloseMessage(_ problem: CloseMessageProblem) -> String { "bad closing message: \(problem)" }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}

/// Why a player name was refused (see `PlayerName`).
public enum NameProblem: Hashable, Sendable {
    case empty
    /// More than `PlayerName.maxScalars` Unicode scalars.
    case tooManyCharacters(Int)
    /// More than `PlayerName.maxBytes` bytes of UTF-8.
    case tooManyBytes(Int)
    /// Whitespace (of any kind) at the start or end.
    case leadingOrTrailingWhitespace
    /// Two spaces in a row.
    case consecutiveSpaces
    /// A scalar that is not a letter, a digit, a space or one of `-_.'`.
    case forbiddenCharacter(Unicode.Scalar)
}

/// Why the text of a `closing` message was refused (see `CloseMessage`).
public enum CloseMessageProblem: Hashable, Sendable {
    /// More than `CloseMessage.maxBytes` bytes of UTF-8.
    case tooLong(bytes: Int)
    case controlCharacter(Unicode.Scalar)
}

extension NameProblem: CustomStringConvertible {
    public var description: String {
        switch self {
        case .empty: "it is empty"
        case .tooManyCharacters(let count): "\(count) characters, at most \(PlayerName.maxScalars) allowed"
        case .tooManyBytes(let count): "\(count) bytes of UTF-8, at most \(PlayerName.maxBytes) allowed"
        case .leadingOrTrailingWhitespace: "it starts or ends with a space"
        case .consecutiveSpaces: "it has two spaces in a row"
        case .forbiddenCharacter(let scalar):
            "\(scalarName(scalar)) is not allowed (letters, digits, spaces and - _ . ' only)"
        }
    }
}

extension CloseMessageProblem: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooLong(let bytes): "\(bytes) bytes, at most \(CloseMessage.maxBytes) allowed"
        case .controlCharacter(let scalar): "control character \(scalarName(scalar))"
        }
    }
}


/// "U+0007", or "U+00E9 'é'" for a printable scalar: never a raw control character,
/// because descriptions travel in `closing` messages and end up in logs.
func scalarName(_ scalar: Unicode.Scalar) -> String {
    let code = String(scalar.value, radix: 16, uppercase: true)
    let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
    let printable = scalar.properties.generalCategory != .control
        && scalar.properties.generalCategory != .format
        && !scalar.properties.isWhitespace
        && scalar.properties.generalCategory != .unassigned
        && scalar.properties.generalCategory != .surrogate
        && scalar.properties.generalCategory != .privateUse
        && scalar.properties.generalCategory != .lineSeparator
        && scalar.properties.generalCategory != .paragraphSeparator
    return printable ? "U+\(padded) '\(Character(scalar))'" : "U+\(padded)"
}
