import SnapBytes

/// Everything that can be wrong with the bytes of a story request, reply or journal record
/// (docs/PROTOCOL.md, "The story service"). Decoding never traps on bad input: it throws one
/// of these. The words of the cases every protocol shares are SnapBytes' `WireText`, so a
/// refusal reads as it did when Story's decoders threw Snap!'s `ProtocolError`.
public enum StoryWireError: Error, Hashable, Sendable {
    // MARK: Framing (SnapBytes)

    case frameTooLong(length: UInt32)
    case frameTooShort(length: UInt32)
    case badMagic
    case sequenceGap(expected: UInt32, got: UInt32)

    // MARK: Structure

    /// No request or reply of this type exists.
    case unknownMessageType(UInt8)
    case truncatedPayload(type: UInt8)
    case trailingBytes(type: UInt8, count: Int)
    /// A journal record of an unknown kind.
    case unknownEventTag(UInt8)
    case countOutOfRange(Counted, count: Int, allowed: ClosedRange<Int>)

    // MARK: Field values

    /// A match's current writer not among its participants.
    case badSeat(UInt8)
    /// A flags byte with bits no version defines.
    case badBool(UInt8)
    /// A `proof` whose old key is neither absent (0 bytes) nor 16 bytes.
    case oldKeyLength(Int)

    // MARK: Text

    case invalidUTF8
    case badName(NameProblem)
    case badCloseMessage(CloseMessageProblem)

    /// Which count field `countOutOfRange` is about.
    public enum Counted: String, Hashable, Sendable {
        case participants = "story participant count"
        case textBytes = "story text length in bytes"
    }
}

/// Frames, fields and names (SnapBytes) throw these cases of Story's error.
extension StoryWireError: WireFailure {}

extension StoryWireError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .frameTooLong(let length): WireText.frameTooLong(length)
        case .frameTooShort(let length): WireText.frameTooShort(length)
        case .badMagic: WireText.badMagic
        case .sequenceGap(let expected, let got): WireText.sequenceGap(expected: expected, got: got)
        case .unknownMessageType(let type): WireText.unknownMessageType(type)
        case .truncatedPayload(let type): WireText.truncatedPayload(type: type)
        case .trailingBytes(let type, let count): WireText.trailingBytes(type: type, count: count)
        case .unknownEventTag(let tag): "unknown event tag \(tag)"
        case .countOutOfRange(let what, let count, let allowed):
            WireText.countOutOfRange(what.rawValue, count: count, allowed: allowed)
        case .badSeat(let value): "seat \(value) is not 0–3"
        case .badBool(let value): "flag \(value) is not 0 or 1"
        case .oldKeyLength(let count): "an old key of \(count) bytes: it is 0 (none) or 16"
        case .invalidUTF8: WireText.invalidUTF8
        case .badName(let problem): WireText.badName(problem)
        case .badCloseMessage(let problem): WireText.badCloseMessage(problem)
        }
    }
}
