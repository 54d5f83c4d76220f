import SnapBytes
import SnapEngine

/// Everything that can be wrong with bytes received from a peer. Decoding never traps
/// on bad input: it throws one of these, and the connection is cut (see docs/PROTOCOL.md,
/// "Protocol violations"). `description` is short and printable, so a host can send it
/// as the message of a `closing(.protocolViolation, …)`.
public enum ProtocolError: Error, Hashable, Sendable {
    // MARK: Framing

    /// The length prefix claims a body longer than `Frame.maxBodyLength`.
    case frameTooLong(length: UInt32)
    /// The length prefix claims a body shorter than `Frame.minBodyLength` (magic, type, sequence).
    case frameTooShort(length: UInt32)
    /// The body does not start with "SNAP".
    case badMagic
    /// The frame's sequence number is not the next one expected on this stream
    /// (a gap, a duplicate, or a replay).
    case sequenceGap(expected: UInt32, got: UInt32)

    // MARK: Message structure

    /// No message of this type exists in this direction.
    case unknownMessageType(UInt8)
    /// The payload of a message of this type ended in the middle of a field.
    case truncatedPayload(type: UInt8)
    /// The payload of a message of this type has `count` bytes left over after its last field.
    case trailingBytes(type: UInt8, count: Int)
    case unknownEventTag(UInt8)
    /// A count field outside its allowed range.
    case countOutOfRange(Counted, count: Int, allowed: ClosedRange<Int>)

    // MARK: Field values

    /// A seat other than 0–3.
    case badSeat(UInt8)
    /// A card other than 0–51 (or 0xFF where a face-down card is allowed).
    case badCard(UInt8)
    /// 0xFF (a face-down card) in an event whose card is always face up.
    case hiddenCardNotAllowed(eventTag: UInt8)
    /// A pile other than 0 (closed) or 1 (open).
    case badPile(UInt8)
    /// A boolean other than 0 or 1.
    case badBool(UInt8)
    case badLeaveReason(UInt8)
    case badCloseReason(UInt8)
    /// A hello role other than 0 (player) or 1 (watcher).
    case badRole(UInt8)
    /// A snapshot phase other than 0–3.
    case badPhase(UInt8)
    /// A hello whose lowest offered version is above its highest.
    case badVersionRange(min: UInt16, max: UInt16)
    /// The same seat twice in a list of seats.
    case duplicateSeat(Seat)
    /// A snapshot's seats not in ascending order (the table has one order; another would
    /// decode to a message that encodes differently).
    case seatsOutOfOrder(Seat, after: Seat)
    /// The same card twice in one `collected` event.
    case duplicateCard(Card)
    /// The same player id twice in a lobby.
    case duplicatePlayerID(UInt8)
    /// A `gameStarted` whose `yourSeat` is not among its players.
    case yourSeatNotPlaying(Seat)
    /// An `info` counting more players than its table takes.
    case tooManyPlayers(players: UInt8, maxPlayers: UInt8)

    // MARK: Text

    /// A string whose bytes are not valid UTF-8.
    case invalidUTF8
    case badName(NameProblem)
    case badCloseMessage(CloseMessageProblem)

    /// Which count field `countOutOfRange` is about.
    public enum Counted: String, Hashable, Sendable {
        case lobbyPlayers = "lobby player count"
        case seatedPlayers = "seated player count"
        case events = "event count"
        case recycledCards = "recycled card count"
        case matchingSeats = "matching seat count"
        case collectedCards = "collected card count"
        case maxPlayers = "table size"
        case joinCodeBytes = "join code length in bytes"
    }

    /// Why a player name or a closing text was refused: SnapBytes' types, by their old names.
    public typealias NameProblem = SnapBytes.NameProblem
    public typealias CloseMessageProblem = SnapBytes.CloseMessageProblem
}

/// Frames, fields and names (SnapBytes) throw these cases of Snap!'s error.
extension ProtocolError: WireFailure {}

extension ProtocolError: CustomStringConvertible {
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
        case .badCard(let value): "card \(value) is not 0–51"
        case .hiddenCardNotAllowed(let tag): "event tag \(tag) cannot carry a face-down card"
        case .badPile(let value): "pile \(value) is not 0 (closed) or 1 (open)"
        case .badBool(let value): "flag \(value) is not 0 or 1"
        case .badLeaveReason(let value): "unknown leave reason \(value)"
        case .badCloseReason(let value): "unknown close reason \(value)"
        case .badRole(let value): "role \(value) is not 0 (player) or 1 (watcher)"
        case .badPhase(let value): "phase \(value) is not 0–3"
        case .badVersionRange(let min, let max): "version range \(min)–\(max) is empty"
        case .duplicateSeat(let seat): "seat \(seat.rawValue) is listed twice"
        case .seatsOutOfOrder(let seat, let previous): "seat \(seat.rawValue) is listed after seat \(previous.rawValue): seats go in ascending order"
        case .duplicateCard(let card): "card \(card.id) is listed twice"
        case .duplicatePlayerID(let id): "player id \(id) is listed twice"
        case .yourSeatNotPlaying(let seat): "your seat \(seat.rawValue) is not among the players"
        case .tooManyPlayers(let players, let maxPlayers):
            "\(players) players at a table for at most \(maxPlayers)"
        case .invalidUTF8: WireText.invalidUTF8
        case .badName(let problem): WireText.badName(problem)
        case .badCloseMessage(let problem): WireText.badCloseMessage(problem)
        }
    }
}
