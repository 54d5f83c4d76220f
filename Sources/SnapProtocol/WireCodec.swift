import SnapBytes
import SnapEngine

/// The binary encoding of every message, exactly as docs/PROTOCOL.md specifies it.
///
/// Decoding is strict and total: any payload that is not exactly the encoding of a valid
/// message throws a `ProtocolError`, so whatever decodes re-encodes to the same bytes.
/// Encoding a message that breaks the limits (a bad name, an out-of-range count, a
/// batch too big for one frame) is a programming error and traps; validate names with
/// `PlayerName` and split event lists with `eventBatches(_:)` first.
public enum WireCodec {
    /// The most events one `events` message carries.
    public static let maxEventsPerBatch = 512

    // MARK: - Message types

    enum ClientType: UInt8 {
        case hello = 0x01, ready, turn, snap, leave, pong, query
    }

    enum HostType: UInt8 {
        case welcome = 0x81, lobby, gameStarted, events, ping, seatLeft, closing, info, seatAway, watching, snapshot,
            dealCommitted, dealRevealed, wonCounts
    }

    // MARK: - Encoding

    /// The complete frame, length prefix included.
    public static func encode(_ message: ClientMessage, sequence: UInt32) -> [UInt8] {
        frame(for: message, sequence: sequence).bytes
    }

    /// The complete frame, length prefix included.
    public static func encode(_ message: HostMessage, sequence: UInt32) -> [UInt8] {
        frame(for: message, sequence: sequence).bytes
    }

    public static func frame(for message: ClientMessage, sequence: UInt32) -> Frame {
        var writer = ByteWriter()
        let type: ClientType
        switch message {
        case .hello(let hello):
            type = .hello
            // Not validated here: the host judges names, and tests must be able to send bad ones.
            writer.u16(hello.versions.lowerBound)
            writer.u16(hello.versions.upperBound)
            writer.string(hello.name)
            // Version 3: the join code, the role and the token, present when the offer reaches
            // version 3 (an older client's hello ends after the name, so a host can still name
            // both ranges).
            if hello.versions.upperBound >= 3 {
                precondition(hello.joinCode.utf8.count <= JoinCode.maxWireBytes, "a join code of \(hello.joinCode.utf8.count) bytes")
                writer.string(hello.joinCode)
                writer.u8(hello.role.rawValue)
                writer.bytes(hello.token?.bytes ?? noToken)
            } else {
                precondition(hello.joinCode.isEmpty && hello.role == .player && hello.token == nil,
                             "a hello offering only versions before 3 carries no join code, role or token")
            }
        case .ready: type = .ready
        case .turn: type = .turn
        case .snap(let call):
            type = .snap
            writer.u32(call.seenTurns)
            writer.u32(call.reactionMicros)
        case .leave: type = .leave
        case .pong(let nonce):
            type = .pong
            writer.u64(nonce)
        case .query: type = .query
        }
        return Frame(type: type.rawValue, sequence: sequence, payload: writer.bytes)
    }

    public static func frame(for message: HostMessage, sequence: UInt32) -> Frame {
        var writer = ByteWriter()
        let type: HostType
        switch message {
        case .welcome(let welcome):
            type = .welcome
            mustBeValid(welcome.hostName, PlayerName.validate)
            writer.u16(welcome.version)
            writer.string(welcome.hostName)
            writer.u8(welcome.playerID)
            writer.bytes(welcome.token?.bytes ?? noToken)
        case .lobby(let players):
            type = .lobby
            precondition(players.count <= 4, "a lobby of \(players.count) players")
            precondition(Set(players.map(\.id)).count == players.count, "duplicate lobby ids in \(players)")
            writer.u8(UInt8(players.count))
            for player in players {
                mustBeValid(player.name, PlayerName.validate)
                writer.u8(player.id)
                writer.string(player.name)
                writer.u8(player.ready ? 1 : 0)
            }
        case .gameStarted(let start):
            type = .gameStarted
            let seats = start.players.map(\.seat)
            precondition((2...4).contains(seats.count), "a game of \(seats.count) players")
            precondition(Set(seats).count == seats.count, "duplicate seats in \(start.players)")
            precondition(start.yourSeat.map(seats.contains) ?? true, "your seat \(String(describing: start.yourSeat)) is not among \(seats)")
            precondition(start.turnLimit != 0, "a turn limit of 0 cannot be sent (0 means none)")
            writer.u8(start.yourSeat?.rawValue ?? noSeat)
            writer.u8(UInt8(seats.count))
            for player in start.players {
                mustBeValid(player.name, PlayerName.validate)
                writer.u8(player.seat.rawValue)
                writer.string(player.name)
            }
            writer.u32(start.turnLimit ?? 0)
            precondition(start.turnTimeoutMillis != 0, "a turn timeout of 0 cannot be sent (0 means none)")
            writer.u32(start.turnTimeoutMillis ?? 0)
            writer.u32(start.graceMillis)
        case .events(let events):
            type = .events
            precondition(
                (1...maxEventsPerBatch).contains(events.count),
                "an events message of \(events.count) events; use WireCodec.eventBatches")
            writer.u16(UInt16(events.count))
            for event in events { write(event, to: &writer) }
            precondition(
                writer.bytes.count <= Frame.maxPayloadLength,
                "an events message of \(writer.bytes.count) bytes; use WireCodec.eventBatches")
        case .ping(let nonce):
            type = .ping
            writer.u64(nonce)
        case .seatLeft(let seat, let reason):
            type = .seatLeft
            writer.u8(seat.rawValue)
            writer.u8(reason.rawValue)
        case .seatAway(let seat, let away):
            type = .seatAway
            writer.u8(seat.rawValue)
            writer.u8(away ? 1 : 0)
        case .watching(let count):
            type = .watching
            writer.u8(count)
        case .snapshot(let snapshot):
            type = .snapshot
            writeSnapshot(snapshot, to: &writer)
        case .closing(let reason, let message):
            type = .closing
            mustBeValid(message, CloseMessage.validate)
            writer.u8(reason.rawValue)
            writer.string(message)
        case .info(let info):
            type = .info
            mustBeValid(info.hostName, PlayerName.validate)
            precondition(tableSizeRange.contains(Int(info.maxPlayers)), "a table for \(info.maxPlayers) players")
            precondition(info.players <= info.maxPlayers, "\(info.players) players at a table for \(info.maxPlayers)")
            writer.string(info.hostName)
            writer.u8(info.players)
            writer.u8(info.maxPlayers)
            writer.u8(info.started ? 1 : 0)
            // Version 3: the join code.
            writer.u8(info.needsCode ? 1 : 0)
        case .dealCommitted(let commitment):
            type = .dealCommitted
            writer.u32(commitment.round)
            writer.bytes(commitment.digest)
        case .dealRevealed(let reveal):
            type = .dealRevealed
            writer.u32(reveal.round)
            writer.u64(reveal.seed)
            writer.bytes(reveal.salt)
        case .wonCounts(let counts):
            type = .wonCounts
            precondition(counts.count <= 4 && Set(counts.map(\.seat)).count == counts.count, "won counts for \(counts)")
            writer.u8(UInt8(counts.count))
            for count in counts {
                writer.u8(count.seat.rawValue)
                writer.u32(count.won)
            }
        }
        return Frame(type: type.rawValue, sequence: sequence, payload: writer.bytes)
    }

    /// `events` cut into runs that each fit one `events` message (at most
    /// `maxEventsPerBatch` events and `Frame.maxPayloadLength` bytes), in order.
    /// An empty list gives no batches.
    public static func eventBatches(_ events: [SeatEvent]) -> [[SeatEvent]] {
        var batches: [[SeatEvent]] = []
        var current: [SeatEvent] = []
        var size = 2  // the u16 count
        for event in events {
            var writer = ByteWriter(capacity: 8)
            write(event, to: &writer)
            let eventSize = writer.bytes.count
            if current.count == maxEventsPerBatch || size + eventSize > Frame.maxPayloadLength {
                batches.append(current)
                current = []
                size = 2
            }
            current.append(event)
            size += eventSize
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }

    private static func mustBeValid(_ text: String, _ validate: (String) throws(ProtocolError) -> String) {
        do {
            _ = try validate(text)
        } catch {
            preconditionFailure("cannot encode \(String(reflecting: text)): \(error)")
        }
    }

    // MARK: - Decoding

    public static func decodeClientMessage(_ frame: Frame) throws(ProtocolError) -> ClientMessage {
        guard let type = ClientType(rawValue: frame.type) else { throw .unknownMessageType(frame.type) }
        var reader = ByteReader<ProtocolError>(frame.payload, type: frame.type)
        let message: ClientMessage
        switch type {
        case .hello:
            let low = try reader.u16()
            let high = try reader.u16()
            let name = try reader.string()
            // Version 3: the join code, 0–16 bytes of UTF-8 (its alphabet is the host's to
            // judge); absent from a hello that offers only older versions.
            let joinCode = high >= 3 ? try reader.string(.joinCodeBytes, in: 0...JoinCode.maxWireBytes) : ""
            guard low <= high else { throw .badVersionRange(min: low, max: high) }
            // The name's rules are the host's to judge (it answers `badName`); the wire
            // only asks for valid UTF-8, which `string()` checked.
            var role = Hello.Role.player
            var token: SeatToken?
            if high >= 3 {
                let rawRole = try reader.u8()
                guard let known = Hello.Role(rawValue: rawRole) else { throw .badRole(rawRole) }
                role = known
                token = SeatToken(bytes: try reader.bytes(16))
            }
            message = .hello(Hello(versions: low...high, name: name, joinCode: joinCode, role: role, token: token))
        case .ready: message = .ready
        case .turn: message = .turn
        case .snap:
            let seenTurns = try reader.u32()
            let reactionMicros = try reader.u32()
            message = .snap(SnapCall(seenTurns: seenTurns, reactionMicros: reactionMicros))
        case .leave: message = .leave
        case .pong: message = .pong(nonce: try reader.u64())
        case .query: message = .query
        }
        try reader.finish()
        return message
    }

    public static func decodeHostMessage(_ frame: Frame) throws(ProtocolError) -> HostMessage {
        guard let type = HostType(rawValue: frame.type) else { throw .unknownMessageType(frame.type) }
        var reader = ByteReader<ProtocolError>(frame.payload, type: frame.type)
        let message: HostMessage
        switch type {
        case .welcome:
            let version = try reader.u16()
            let hostName = try PlayerName.validate(reader.string())
            let playerID = try reader.u8()
            let token = SeatToken(bytes: try reader.bytes(16))
            message = .welcome(Welcome(version: version, hostName: hostName, playerID: playerID, token: token))
        case .lobby:
            let count = try reader.count8(.lobbyPlayers, in: 0...4)
            var players: [LobbyPlayer] = []
            for _ in 0..<count {
                let id = try reader.u8()
                let name = try PlayerName.validate(reader.string())
                let ready = try readBool(&reader)
                guard !players.contains(where: { $0.id == id }) else { throw .duplicatePlayerID(id) }
                players.append(LobbyPlayer(id: id, name: name, ready: ready))
            }
            message = .lobby(players)
        case .gameStarted:
            let rawYourSeat = try reader.u8()
            let yourSeat: Seat?
            if rawYourSeat == noSeat { yourSeat = nil } else {
                guard let seat = Seat(rawValue: rawYourSeat) else { throw .badSeat(rawYourSeat) }
                yourSeat = seat
            }
            let count = try reader.count8(.seatedPlayers, in: 2...4)
            var players: [SeatedPlayer] = []
            for _ in 0..<count {
                let seat = try readSeat(&reader)
                let name = try PlayerName.validate(reader.string())
                guard !players.contains(where: { $0.seat == seat }) else { throw .duplicateSeat(seat) }
                players.append(SeatedPlayer(seat: seat, name: name))
            }
            let turnLimit = try reader.u32()
            let turnTimeout = try reader.u32()
            let grace = try reader.u32()
            if let yourSeat, !players.contains(where: { $0.seat == yourSeat }) { throw .yourSeatNotPlaying(yourSeat) }
            message = .gameStarted(
                GameStart(yourSeat: yourSeat, players: players, turnLimit: turnLimit == 0 ? nil : turnLimit,
                          turnTimeoutMillis: turnTimeout == 0 ? nil : turnTimeout, graceMillis: grace))
        case .events:
            let count = try reader.count16(.events, in: 1...maxEventsPerBatch)
            var events: [SeatEvent] = []
            events.reserveCapacity(count)
            for _ in 0..<count {
                events.append(try readEvent(&reader))
            }
            message = .events(events)
        case .ping:
            message = .ping(nonce: try reader.u64())
        case .seatLeft:
            let seat = try readSeat(&reader)
            let raw = try reader.u8()
            guard let reason = LeaveReason(rawValue: raw) else { throw .badLeaveReason(raw) }
            message = .seatLeft(seat, reason)
        case .seatAway:
            let seat = try readSeat(&reader)
            message = .seatAway(seat, away: try readBool(&reader))
        case .watching:
            message = .watching(try reader.u8())
        case .snapshot:
            message = .snapshot(try readSnapshot(&reader))
        case .closing:
            let raw = try reader.u8()
            guard let reason = CloseReason(rawValue: raw) else { throw .badCloseReason(raw) }
            let text = try CloseMessage.validate(reader.string())
            message = .closing(reason, message: text)
        case .info:
            let hostName = try PlayerName.validate(reader.string())
            let players = try reader.u8()
            let maxPlayers = UInt8(try reader.count8(.maxPlayers, in: tableSizeRange))
            let started = try readBool(&reader)
            let needsCode = try readBool(&reader)
            guard players <= maxPlayers else { throw .tooManyPlayers(players: players, maxPlayers: maxPlayers) }
            message = .info(HostInfo(hostName: hostName, players: players, maxPlayers: maxPlayers, started: started,
                                     needsCode: needsCode))
        case .dealCommitted:
            let round = try reader.u32()
            message = .dealCommitted(DealCommitment(round: round, digest: try reader.bytes(DealCommitment.digestLength)))
        case .dealRevealed:
            let round = try reader.u32()
            let seed = try reader.u64()
            message = .dealRevealed(DealReveal(round: round, seed: seed, salt: try reader.bytes(DealReveal.saltLength)))
        case .wonCounts:
            let count = try reader.count8(.seatedPlayers, in: 0...4)
            var counts: [SeatWonCount] = []
            for _ in 0..<count {
                let seat = try readSeat(&reader)
                guard !counts.contains(where: { $0.seat == seat }) else { throw .duplicateSeat(seat) }
                counts.append(SeatWonCount(seat: seat, won: try reader.u32()))
            }
            message = .wonCounts(counts)
        }
        try reader.finish()
        return message
    }

    // MARK: - Fields

    static let hiddenCard: UInt8 = 0xFF
    /// `yourSeat` of a watcher; an active seat when nobody is.
    static let noSeat: UInt8 = 0xFF
    /// A token field with no token.
    static let noToken = [UInt8](repeating: 0, count: 16)
    /// How many players a table takes at most (`info.maxPlayers`).
    static let tableSizeRange = 2...4

    static func readSeat(_ reader: inout ByteReader<ProtocolError>) throws(ProtocolError) -> Seat {
        let raw = try reader.u8()
        guard let seat = Seat(rawValue: raw) else { throw .badSeat(raw) }
        return seat
    }

    static func readBool(_ reader: inout ByteReader<ProtocolError>) throws(ProtocolError) -> Bool {
        switch try reader.u8() {
        case 0: return false
        case 1: return true
        case let raw: throw .badBool(raw)
        }
    }

    /// A face-up card: 0–51, never 0xFF.
    static func readCard(_ reader: inout ByteReader<ProtocolError>, tag: EventTag) throws(ProtocolError) -> Card {
        let raw = try reader.u8()
        if raw == hiddenCard { throw .hiddenCardNotAllowed(eventTag: tag.rawValue) }
        guard let card = Card(id: raw) else { throw .badCard(raw) }
        return card
    }

    /// A card that may be face down: 0–51, or 0xFF for nil.
    static func readOptionalCard(_ reader: inout ByteReader<ProtocolError>) throws(ProtocolError) -> Card? {
        let raw = try reader.u8()
        if raw == hiddenCard { return nil }
        guard let card = Card(id: raw) else { throw .badCard(raw) }
        return card
    }
}
