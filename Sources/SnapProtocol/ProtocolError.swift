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
    /// A story `proof` whose old key is neither absent (0 bytes) nor 16 bytes.
    case storyOldKeyLength(Int)

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
        // The story service (docs/PROTOCOL.md, "The story service").
        case storyParticipants = "story participant count"
        case storyTextBytes = "story text length in bytes"
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
}

extension ProtocolError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .frameTooLong(let length):
            "frame length \(length) is over the limit of \(Frame.maxBodyLength) bytes"
        case .frameTooShort(let length):
            "frame length \(length) is under the minimum of \(Frame.minBodyLength) bytes"
        case .badMagic: "frame does not start with SNAP"
        case .sequenceGap(let expected, let got):
            "sequence number \(got) where \(expected) was expected"
        case .unknownMessageType(let type): "unknown message type \(hex(type))"
        case .truncatedPayload(let type): "message type \(hex(type)) is truncated"
        case .trailingBytes(let type, let count):
            "message type \(hex(type)) has \(count) unexpected trailing byte\(count == 1 ? "" : "s")"
        case .unknownEventTag(let tag): "unknown event tag \(tag)"
        case .countOutOfRange(let what, let count, let allowed):
            "\(what.rawValue) \(count) is outside \(allowed.lowerBound)–\(allowed.upperBound)"
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
        case .storyOldKeyLength(let count): "an old key of \(count) bytes: it is 0 (none) or 16"
        case .invalidUTF8: "text is not valid UTF-8"
        case .badName(let problem): "bad player name: \(problem)"
        case .badCloseMessage(let problem): "bad closing message: \(problem)"
        }
    }
}

extension ProtocolError.NameProblem: CustomStringConvertible {
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

extension ProtocolError.CloseMessageProblem: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooLong(let bytes): "\(bytes) bytes, at most \(CloseMessage.maxBytes) allowed"
        case .controlCharacter(let scalar): "control character \(scalarName(scalar))"
        }
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
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
