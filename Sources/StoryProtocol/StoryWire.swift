import SnapBytes
import StoryEngine

/// The story service's messages (docs/PROTOCOL.md, "The story service"). They travel in
/// Snap!'s frames (`Frame`, numbered from 0 each way) with their own type numbers, so a
/// Snap! client reaching the story service (or the reverse) is told so rather than misread.
public enum StoryWire {
    /// The story protocol's version; a hello offering another is refused in words.
    /// 2: players sign in with an Ed25519 key pair (1 sent a secret key as it was).
    /// 3: turn deadlines, declining and rematches (a match carries its deadline, who
    /// declined and who missed turns).
    public static let version: UInt16 = 3
    /// A frame body may be this long: a match view carries up to 4096 bytes of story.
    public static let maxBodyLength = 16_384
    /// The most bytes a turn's text may carry (250 scalars of at most 4 bytes).
    public static let maxTurnBytes = StoryRules.maxTurnScalars * 4
    public static let maxTitleBytes = 255
    public static let publicKeyBytes = 32
    public static let signatureBytes = 64
    /// A challenge's nonce: fresh random bytes for each connection.
    public static let nonceBytes = 32
    /// A key of story protocol version 1, sent once more to carry its name over.
    public static let oldKeyBytes = 16
    /// The start of every signed sign-in message, so that a signature made for something
    /// else can never pass for one.
    public static let signInContext = Array("snap story sign-in v2".utf8)

    /// What a proof signs: the context, the service's nonce, the name (u8 length and
    /// UTF-8) and the channel binding. The nonce makes a captured proof useless on
    /// another connection; the binding makes it useless on another channel (another
    /// TLS certificate: a service in the middle).
    public static func signInMessage(nonce: [UInt8], name: String, channelBinding: StoryChannelBinding) -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes(signInContext)
        writer.bytes(nonce)
        writer.string(name)
        writer.bytes(channelBinding.bytes)
        return writer.bytes
    }

    /// A match as the wire carries it: also how a store keeps one (a row's `body`).
    public static func bytes(of match: StoryMatch) -> [UInt8] {
        var writer = ByteWriter()
        StoryReply.write(match, to: &writer)
        return writer.bytes
    }

    /// A match from `bytes(of:)`; every length and flag is checked, and nothing may follow.
    public static func match(from bytes: [UInt8]) throws(StoryWireError) -> StoryMatch {
        var reader = ByteReader<StoryWireError>(bytes, type: StoryReply.Kind.match.rawValue)
        let match = try StoryReply.readMatch(&reader)
        try reader.finish()
        return match
    }

    public static func frame(_ type: UInt8, _ payload: [UInt8], sequence: UInt32) -> [UInt8] {
        Frame(type: type, sequence: sequence, payload: payload).bytes(maxBodyLength: maxBodyLength)
    }
}

/// The channel a sign-in travels on, as both ends see it: 32 bytes that go into the signed
/// message (`StoryWire.signInMessage`), so that a proof made for one channel fails on any
/// other. Both ends must pass the same value or every sign-in fails with `wrongKey`.
///
/// - A Unix socket, or TCP without TLS: `.unbound` (32 zero bytes; there is no channel
///   identity to bind to; the nonce still stops replays).
/// - TLS: the SHA-256 fingerprint of the service's certificate (of its DER bytes). The
///   service passes its own certificate's (`StoryServer.listen(host:port:channelBinding:)`),
///   the client the one it verified (`StoryClient(…, channelBinding:)`,
///   `StoryKeyStore.signIn(…, channelBinding:)`).
public struct StoryChannelBinding: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Nil unless exactly 32 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// No channel identity: a Unix socket, or TCP without TLS.
    public static let unbound = StoryChannelBinding(bytes: Array(repeating: 0, count: 32))!

    /// A TLS channel: the SHA-256 digest of the service's certificate, DER-encoded.
    public static func tlsCertificate(sha256 fingerprint: [UInt8]) -> StoryChannelBinding? {
        StoryChannelBinding(bytes: fingerprint)
    }

    public var description: String {
        self == .unbound ? "unbound" : bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

/// What a player asks the service.
public enum StoryRequest: Hashable, Sendable {
    /// The first message: who is asking, with their public key (and the join code over
    /// TCP), in this version of the protocol. The service answers with a challenge.
    case hello(name: String, publicKey: [UInt8], joinCode: String)
    /// A hello of another version: only its version is read (the rest is that version's
    /// business), so that the service can refuse it in words naming the upgrade.
    case otherVersionHello(version: UInt16, rest: [UInt8])
    /// The answer to a challenge: the signature of `StoryWire.signInMessage` by the
    /// hello's public key, and (once, to carry a name over from version 1) the old
    /// 16-byte key, else no bytes.
    case proof(signature: [UInt8], oldKey: [UInt8])
    /// `turnSeconds`: each turn's deadline; 0 asks for the service's default.
    case create(others: [String], title: String, turnSeconds: UInt64 = 0)
    case automatch
    case list
    case show(StoryMatchID)
    case turn(StoryMatchID, text: String)
    case quit(StoryMatchID)
    /// Say no to an invitation, before writing anything.
    case decline(StoryMatchID)
    /// A new match with an ended one's participants (the same one, if asked again).
    case rematch(StoryMatchID)
    /// From now on, push an `update` whenever one of this player's matches changes.
    case watch
    case ping(UInt64)

    public enum Kind: UInt8, CaseIterable, Sendable {
        case hello = 0x80, create, automatch, list, show, turn, quit, watch, ping, proof, decline, rematch
    }

    public var kind: Kind {
        switch self {
        case .hello, .otherVersionHello: .hello
        case .proof: .proof
        case .create: .create
        case .automatch: .automatch
        case .list: .list
        case .show: .show
        case .turn: .turn
        case .quit: .quit
        case .watch: .watch
        case .ping: .ping
        case .decline: .decline
        case .rematch: .rematch
        }
    }

    /// Why this request cannot be encoded (a field too long for its length prefix), if it cannot.
    public var problem: StoryRequestError? {
        switch self {
        case .hello(let name, let publicKey, let joinCode):
            if name.utf8.count > 255 || joinCode.utf8.count > 255 { return .init(.signIn, "the name or join code is too long") }
            if publicKey.count != StoryWire.publicKeyBytes { return .init(.signIn, "a public key is 32 bytes, not \(publicKey.count)") }
        case .otherVersionHello(let version, _):
            if version == StoryWire.version { return .init(.signIn, "a version \(version) hello is a hello") }
        case .proof(let signature, let oldKey):
            if signature.count != StoryWire.signatureBytes { return .init(.signIn, "a signature is 64 bytes, not \(signature.count)") }
            if !oldKey.isEmpty, oldKey.count != StoryWire.oldKeyBytes { return .init(.signIn, "an old key is 16 bytes, not \(oldKey.count)") }
        case .create(let others, let title, _):
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
        case .hello(let name, let publicKey, let joinCode):
            writer.u16(StoryWire.version)
            writer.string(name)
            writer.bytes(publicKey)
            writer.string(joinCode)
        case .otherVersionHello(let version, let rest):
            writer.u16(version)
            writer.bytes(rest)
        case .proof(let signature, let oldKey):
            writer.bytes(signature)
            writer.u8(UInt8(oldKey.count))
            writer.bytes(oldKey)
        case .create(let others, let title, let turnSeconds):
            writer.string(title)
            writer.u8(UInt8(others.count))
            for name in others { writer.string(name) }
            writer.u64(turnSeconds)
        case .automatch, .list, .watch:
            break
        case .show(let id), .quit(let id), .decline(let id), .rematch(let id):
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
    public static func decode(_ frame: Frame) throws(StoryWireError) -> StoryRequest {
        guard let kind = Kind(rawValue: frame.type) else { throw .unknownMessageType(frame.type) }
        var reader = ByteReader<StoryWireError>(frame.payload, type: frame.type)
        let request: StoryRequest
        switch kind {
        case .hello:
            let version = try reader.u16()
            guard version == StoryWire.version else {
                return .otherVersionHello(version: version, rest: try reader.bytes(reader.remaining))
            }
            let name = try reader.string()
            let publicKey = try reader.bytes(StoryWire.publicKeyBytes)
            request = .hello(name: name, publicKey: publicKey, joinCode: try reader.string())
        case .proof:
            let signature = try reader.bytes(StoryWire.signatureBytes)
            let length = Int(try reader.u8())
            guard length == 0 || length == StoryWire.oldKeyBytes else { throw .oldKeyLength(length) }
            request = .proof(signature: signature, oldKey: try reader.bytes(length))
        case .create:
            let title = try reader.string()
            let count = try reader.count8(.participants, in: 0...(StoryRules.participants.upperBound - 1))
            var others: [String] = []
            for _ in 0..<count { others.append(try reader.string()) }
            request = .create(others: others, title: title, turnSeconds: try reader.u64())
        case .automatch: request = .automatch
        case .list: request = .list
        case .watch: request = .watch
        case .show: request = .show(StoryMatchID(try reader.u32()))
        case .quit: request = .quit(StoryMatchID(try reader.u32()))
        case .decline: request = .decline(StoryMatchID(try reader.u32()))
        case .rematch: request = .rematch(StoryMatchID(try reader.u32()))
        case .turn:
            let id = StoryMatchID(try reader.u32())
            let length = try reader.count16(.textBytes, in: 0...StoryWire.maxTurnBytes)
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
    /// The service cannot reach its database: nothing was changed; try again.
    case unavailable
    case notEnded, alreadyWrote

    public init(_ error: StoryError) {
        switch error {
        case .notYourTurn: self = .notYourTurn
        case .tooLong: self = .tooLong
        case .storyTooLong: self = .storyTooLong
        case .matchOver: self = .matchOver
        case .unknownMatch: self = .unknownMatch
        case .quitParticipant: self = .quitParticipant
        case .notAParticipant: self = .notAParticipant
        case .alreadyWrote: self = .alreadyWrote
        case .notEnded: self = .notEnded
        case .emptyTurn, .controlCharacter, .participantCount, .duplicateParticipant, .titleTooLong, .notDue: self = .badRequest
        }
    }
}

/// What the service says.
public enum StoryReply: Hashable, Sendable {
    /// The answer to a hello: sign `StoryWire.signInMessage` with this nonce (32 random
    /// bytes, new for each connection) and send it as a `proof`.
    case challenge(nonce: [UInt8])
    case welcome(version: UInt16, name: String)
    /// A match as it stands: the answer to create, automatch, show, turn and quit, and
    /// one of the matches a list sends.
    case match(StoryMatch)
    /// Pushed to a watching connection when one of its player's matches changed.
    case update(StoryMatch)
    /// The end of a list: how many matches it sent.
    case listed(count: UInt32)
    /// A refusal. After a refused sign-in (and an over-budget request) the connection is closed.
    case refused(StoryRefusal, String)
    case pong(UInt64)

    public enum Kind: UInt8, CaseIterable, Sendable {
        case welcome = 0xC0, match, update, listed, refused, pong, challenge
    }

    public var kind: Kind {
        switch self {
        case .challenge: .challenge
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
        case .challenge(let nonce):
            writer.bytes(nonce)
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
            writer.u8((participant.quit ? 1 : 0) | (participant.declined ? 2 : 0) | (participant.wrote ? 4 : 0))
            writer.u8(UInt8(min(participant.missed, 255)))
        }
        writer.u8(match.current.map(UInt8.init) ?? 0xFF)
        writer.u64(match.createdAt)
        writer.u64(match.lastTurnAt ?? 0)
        writer.u32(UInt32(match.turnsTaken))
        writer.u64(match.turnSeconds)
        writer.u64(match.dueAt ?? 0)
        writer.u32(match.rematch?.value ?? 0)
        writer.u16(UInt16(match.textBytes))
        writer.bytes(match.text.utf8)
    }

    public static func decode(_ frame: Frame) throws(StoryWireError) -> StoryReply {
        guard let kind = Kind(rawValue: frame.type) else { throw .unknownMessageType(frame.type) }
        var reader = ByteReader<StoryWireError>(frame.payload, type: frame.type)
        let reply: StoryReply
        switch kind {
        case .challenge: reply = .challenge(nonce: try reader.bytes(StoryWire.nonceBytes))
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

    static func readMatch(_ reader: inout ByteReader<StoryWireError>) throws(StoryWireError) -> StoryMatch {
        let id = StoryMatchID(try reader.u32())
        let title = try reader.string()
        let places = Int(try reader.u8())
        let count = try reader.count8(.participants, in: 1...StoryRules.participants.upperBound)
        var participants: [StoryParticipant] = []
        for _ in 0..<count {
            let name = try reader.string()
            // Three flags (quit, declined, wrote): any other bit would not re-encode as sent.
            let flags = try reader.u8()
            guard flags <= 7 else { throw .badBool(flags) }
            let missed = Int(try reader.u8())
            participants.append(StoryParticipant(name: name, quit: flags & 1 != 0, declined: flags & 2 != 0,
                                                 wrote: flags & 4 != 0, missed: missed))
        }
        let current = try reader.u8()
        guard current == 0xFF || Int(current) < count else { throw .badSeat(current) }
        let createdAt = try reader.u64()
        let lastTurnAt = try reader.u64()
        let turns = Int(try reader.u32())
        let turnSeconds = try reader.u64()
        let dueAt = try reader.u64()
        let rematch = try reader.u32()
        let length = try reader.count16(.textBytes, in: 0...StoryRules.maxBytes)
        guard let text = String(validating: try reader.bytes(length), as: UTF8.self) else { throw .invalidUTF8 }
        return StoryMatch(id: id, title: title, participants: participants, places: places,
                          current: current == 0xFF ? nil : Int(current), text: text, createdAt: createdAt,
                          lastTurnAt: lastTurnAt == 0 ? nil : lastTurnAt, turnsTaken: turns,
                          turnSeconds: turnSeconds, dueAt: dueAt == 0 ? nil : dueAt, rematch: rematch == 0 ? nil : StoryMatchID(rematch))
    }
}
