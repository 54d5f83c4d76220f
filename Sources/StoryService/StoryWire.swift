import SnapProtocol
import StoryEngine

/// The story service's messages (docs/PROTOCOL.md, "The story service"). They travel in
/// Snap!'s frames (`Frame`, numbered from 0 each way) with their own type numbers, so a
/// Snap! client reaching the story service (or the reverse) is told so rather than misread.
public enum StoryWire {
    /// The story protocol's version; a hello offering another is refused.
    public static let version: UInt16 = 1
    /// A frame body may be this long: a match view carries up to 4096 bytes of story.
    public static let maxBodyLength = 16_384
    /// The most bytes a turn's text may carry (250 scalars of at most 4 bytes).
    public static let maxTurnBytes = StoryRules.maxTurnScalars * 4
    public static let maxTitleBytes = 255

    public static func frame(_ type: UInt8, _ payload: [UInt8], sequence: UInt32) -> [UInt8] {
        Frame(type: type, sequence: sequence, payload: payload).bytes(maxBodyLength: maxBodyLength)
    }
}

/// What a player asks the service.
public enum StoryRequest: Hashable, Sendable {
    /// The first message: who is asking, with their secret key (and the join code over TCP).
    /// `key` is the 16 bytes as sent: a well-formed hello with an unusable key (all zeros)
    /// is the service's to refuse in words, not a malformed message.
    case hello(version: UInt16, name: String, key: [UInt8], joinCode: String)
    case create(others: [String], title: String)
    case automatch
    case list
    case show(StoryMatchID)
    case turn(StoryMatchID, text: String)
    case quit(StoryMatchID)
    /// From now on, push an `update` whenever one of this player's matches changes.
    case watch
    case ping(UInt64)

    public enum Kind: UInt8, CaseIterable, Sendable {
        case hello = 0x80, create, automatch, list, show, turn, quit, watch, ping
    }

    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .create: .create
        case .automatch: .automatch
        case .list: .list
        case .show: .show
        case .turn: .turn
        case .quit: .quit
        case .watch: .watch
        case .ping: .ping
        }
    }

    /// Why this request cannot be encoded (a field too long for its length prefix), if it cannot.
    public var problem: StoryRequestError? {
        switch self {
        case .hello(_, let name, let key, let joinCode):
            if name.utf8.count > 255 || joinCode.utf8.count > 255 { return .init(.signIn, "the name or join code is too long") }
            if key.count != 16 { return .init(.signIn, "a key is 16 bytes, not \(key.count)") }
        case .create(let others, let title):
            let scalars = title.unicodeScalars.count
            if title.utf8.count > 255 || scalars > StoryRules.maxTitleScalars { return .init(.badRequest, StoryError.titleTooLong(scalars: scalars).description) }
            if others.count + 1 > StoryRules.participants.upperBound { return .init(.badRequest, StoryError.participantCount(others.count + 1).description) }
            if let long = others.first(where: { $0.utf8.count > 255 }) { return .init(.badRequest, "not a usable name: \(long.prefix(20))…") }
        case .turn(_, let text):
            if text.utf8.count > StoryWire.maxTurnBytes || text.unicodeScalars.count > StoryRules.maxTurnScalars {
                return .init(.tooLong, StoryError.tooLong(scalars: text.unicodeScalars.count).description)
            }
        default: break
        }
        return nil
    }

    public func encode(sequence: UInt32) -> [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .hello(let version, let name, let key, let joinCode):
            writer.u16(version)
            writer.string(name)
            writer.bytes(key)
            writer.string(joinCode)
        case .create(let others, let title):
            writer.string(title)
            writer.u8(UInt8(others.count))
            for name in others { writer.string(name) }
        case .automatch, .list, .watch:
            break
        case .show(let id), .quit(let id):
            writer.u32(id.value)
        case .turn(let id, let text):
            writer.u32(id.value)
            writer.u16(UInt16(text.utf8.count))
            writer.bytes(text.utf8)
        case .ping(let nonce):
            writer.u64(nonce)
        }
        return StoryWire.frame(kind.rawValue, writer.bytes, sequence: sequence)
    }

    /// Decodes one frame's request; every length is checked before it is trusted.
    public static func decode(_ frame: Frame) throws(ProtocolError) -> StoryRequest {
        guard let kind = Kind(rawValue: frame.type) else { throw .unknownMessageType(frame.type) }
        var reader = ByteReader(frame.payload, type: frame.type)
        let request: StoryRequest
        switch kind {
        case .hello:
            let version = try reader.u16()
            let name = try reader.string()
            let key = try reader.bytes(16)
            request = .hello(version: version, name: name, key: key, joinCode: try reader.string())
        case .create:
            let title = try reader.string()
            let count = try reader.count8(.storyParticipants, in: 0...(StoryRules.participants.upperBound - 1))
            var others: [String] = []
            for _ in 0..<count { others.append(try reader.string()) }
            request = .create(others: others, title: title)
        case .automatch: request = .automatch
        case .list: request = .list
        case .watch: request = .watch
        case .show: request = .show(StoryMatchID(try reader.u32()))
        case .quit: request = .quit(StoryMatchID(try reader.u32()))
        case .turn:
            let id = StoryMatchID(try reader.u32())
            let length = try reader.count16(.storyTextBytes, in: 0...StoryWire.maxTurnBytes)
            guard let text = String(validating: try reader.bytes(length), as: UTF8.self) else { throw .invalidUTF8 }
            request = .turn(id, text: text)
        case .ping: request = .ping(try reader.u64())
        }
        try reader.finish()
        return request
    }
}

/// Why the service said no; the words go with it.
public enum StoryRefusal: UInt8, Sendable, CaseIterable {
    case notYourTurn = 1, tooLong, matchOver, unknownMatch, quitParticipant, notAParticipant
    case storyTooLong, badRequest, wrongKey, signIn, overBudget, busy

    public init(_ error: StoryError) {
        switch error {
        case .notYourTurn: self = .notYourTurn
        case .tooLong: self = .tooLong
        case .storyTooLong: self = .storyTooLong
        case .matchOver: self = .matchOver
        case .unknownMatch: self = .unknownMatch
        case .quitParticipant: self = .quitParticipant
        case .notAParticipant: self = .notAParticipant
        case .emptyTurn, .controlCharacter, .participantCount, .duplicateParticipant, .titleTooLong: self = .badRequest
        }
    }
}

/// What the service says.
public enum StoryReply: Hashable, Sendable {
    case welcome(version: UInt16, name: String)
    /// A match as it stands: the answer to create, automatch, show, turn and quit, and
    /// one of the matches a list sends.
    case match(StoryMatch)
    /// Pushed to a watching connection when one of its player's matches changed.
    case update(StoryMatch)
    /// The end of a list: how many matches it sent.
    case listed(count: UInt32)
    /// A refusal. After a refused hello (and an over-budget one) the connection is closed.
    case refused(StoryRefusal, String)
    case pong(UInt64)

    public enum Kind: UInt8, CaseIterable, Sendable {
        case welcome = 0xC0, match, update, listed, refused, pong
    }

    public var kind: Kind {
        switch self {
        case .welcome: .welcome
        case .match: .match
        case .update: .update
        case .listed: .listed
        case .refused: .refused
        case .pong: .pong
        }
    }

    public func encode(sequence: UInt32) -> [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .welcome(let version, let name):
            writer.u16(version)
            writer.string(name)
        case .match(let match), .update(let match):
            Self.write(match, to: &writer)
        case .listed(let count):
            writer.u32(count)
        case .refused(let why, let message):
            writer.u8(why.rawValue)
            writer.string(CloseMessage.fitted(message))
        case .pong(let nonce):
            writer.u64(nonce)
        }
        return StoryWire.frame(kind.rawValue, writer.bytes, sequence: sequence)
    }

    static func write(_ match: StoryMatch, to writer: inout ByteWriter) {
        writer.u32(match.id.value)
        writer.string(match.title)
        writer.u8(UInt8(match.places))
        writer.u8(UInt8(match.participants.count))
        for participant in match.participants {
            writer.string(participant.name)
            writer.u8(participant.quit ? 1 : 0)
        }
        writer.u8(match.current.map(UInt8.init) ?? 0xFF)
        writer.u64(match.createdAt)
        writer.u64(match.lastTurnAt ?? 0)
        writer.u32(UInt32(match.turnsTaken))
        writer.u16(UInt16(match.textBytes))
        writer.bytes(match.text.utf8)
    }

    public static func decode(_ frame: Frame) throws(ProtocolError) -> StoryReply {
        guard let kind = Kind(rawValue: frame.type) else { throw .unknownMessageType(frame.type) }
        var reader = ByteReader(frame.payload, type: frame.type)
        let reply: StoryReply
        switch kind {
        case .welcome: reply = .welcome(version: try reader.u16(), name: try reader.string())
        case .match: reply = .match(try readMatch(&reader))
        case .update: reply = .update(try readMatch(&reader))
        case .listed: reply = .listed(count: try reader.u32())
        case .refused:
            let code = try reader.u8()
            let message = try reader.string()
            reply = .refused(StoryRefusal(rawValue: code) ?? .badRequest, message)
        case .pong: reply = .pong(try reader.u64())
        }
        try reader.finish()
        return reply
    }

    static func readMatch(_ reader: inout ByteReader) throws(ProtocolError) -> StoryMatch {
        let id = StoryMatchID(try reader.u32())
        let title = try reader.string()
        let places = Int(try reader.u8())
        let count = try reader.count8(.storyParticipants, in: 1...StoryRules.participants.upperBound)
        var participants: [StoryParticipant] = []
        for _ in 0..<count {
            let name = try reader.string()
            // 0 or 1, as every boolean on the wire: any other byte would not re-encode as sent.
            let quit = try reader.u8()
            guard quit <= 1 else { throw .badBool(quit) }
            participants.append(StoryParticipant(name: name, quit: quit == 1))
        }
        let current = try reader.u8()
        guard current == 0xFF || Int(current) < count else { throw .badSeat(current) }
        let createdAt = try reader.u64()
        let lastTurnAt = try reader.u64()
        let turns = Int(try reader.u32())
        let length = try reader.count16(.storyTextBytes, in: 0...StoryRules.maxBytes)
        guard let text = String(validating: try reader.bytes(length), as: UTF8.self) else { throw .invalidUTF8 }
        return StoryMatch(id: id, title: title, participants: participants, places: places,
                          current: current == 0xFF ? nil : Int(current), text: text, createdAt: createdAt,
                          lastTurnAt: lastTurnAt == 0 ? nil : lastTurnAt, turnsTaken: turns)
    }
}
