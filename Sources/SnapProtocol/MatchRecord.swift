import SnapBytes
import SnapEngine

/// One entry of a match's log, as the host keeps it and the journal stores it
/// (docs/JOURNAL.md). The game is a fold of these: `started` makes it, each `applied`
/// command changes it and must give exactly the events logged with it.
public struct MatchRecord: Hashable, Sendable {
    public enum Entry: Hashable, Sendable {
        case started(MatchStart)
        /// An accepted command and every event it caused, every card named.
        case applied(Command, [Event])
        case ended(reason: String)
        /// The commitment announced before a deal, with the salt it hides (the seed is in
        /// the `deal` command that follows): a resumed host can still reveal it.
        case committed(DealCommitment, salt: [UInt8])
        /// The seed and salt revealed at the round's end, as sent.
        case revealed(DealReveal)
    }

    /// 0, 1, 2, … in the order the host appended them.
    public var sequence: UInt64
    /// The host's clock when it was appended, in microseconds since the match's host started.
    public var timeMicros: UInt64
    public var entry: Entry

    public init(sequence: UInt64, timeMicros: UInt64, entry: Entry) {
        self.sequence = sequence
        self.timeMicros = timeMicros
        self.entry = entry
    }
}

public struct MatchStart: Hashable, Sendable {
    public var hostName: String
    /// The match's seed: with the commands, it determines every deal.
    public var seed: UInt64
    public var rules: Rules
    /// Who sits where, clockwise from the bottom.
    public var players: [SeatedPlayer]
    /// Wall-clock seconds since 1970, for the history list.
    public var startedAt: UInt64
    /// What a resumed host needs: each seat's token (nil for the host's computer
    /// players), the rounds to play (nil: until the host quits) and the computers' level.
    public var tokens: [Seat: SeatToken]
    public var rounds: Int?
    public var botLevel: UInt8

    public init(hostName: String, seed: UInt64, rules: Rules, players: [SeatedPlayer], startedAt: UInt64,
                tokens: [Seat: SeatToken] = [:], rounds: Int? = nil, botLevel: UInt8 = 1) {
        self.hostName = hostName
        self.seed = seed
        self.rules = rules
        self.players = players
        self.startedAt = startedAt
        self.tokens = tokens
        self.rounds = rounds
        self.botLevel = botLevel
    }
}

/// The binary form of a `MatchRecord`: a journal record's payload (docs/JOURNAL.md).
public enum MatchRecordCodec {
    /// The journal's kind string for Snap! matches.
    public static let kind = "snap-match"

    enum Kind: UInt8 { case started = 1, applied, ended, committed, revealed }
    enum CommandTag: UInt8 { case deal = 1, finishDeal, turn, activateNext, snap, leave, absent, returned }

    public static func encode(_ record: MatchRecord) -> [UInt8] {
        var writer = ByteWriter(capacity: 32)
        encode(record, to: &writer)
        return writer.bytes
    }

    /// Stores the record's bytes at the start of `room` and returns how many: a journal
    /// writer's ring, where an `applied` record is encoded on the host's path for each
    /// command (no array of its own, no copy after). Traps if they do not fit.
    public static func encode(_ record: MatchRecord, into room: UnsafeMutableRawBufferPointer) -> Int {
        var writer = BufferWriter(room)
        encode(record, to: &writer)
        return writer.count
    }

    // Always inlined into its two callers, as is `WireCodec.write`: a writer local to the
    // caller lives in registers; passed by address, its count was reloaded after every
    // store into the room (which may alias it): 271 → 235 instructions a journal append.
    @inline(__always) private static func encode(_ record: MatchRecord, to writer: inout some ByteSink) {
        switch record.entry {
        case .started: writer.u8(Kind.started.rawValue)
        case .applied: writer.u8(Kind.applied.rawValue)
        case .ended: writer.u8(Kind.ended.rawValue)
        case .committed: writer.u8(Kind.committed.rawValue)
        case .revealed: writer.u8(Kind.revealed.rawValue)
        }
        writer.u64(record.sequence)
        writer.u64(record.timeMicros)
        switch record.entry {
        case .started(let start):
            writer.string(start.hostName)
            writer.u64(start.seed)
            writer.u32(start.rules.turnLimit.map { UInt32(clamping: $0) } ?? 0)
            writer.u64(start.startedAt)
            writer.u32(start.rounds.map { UInt32(clamping: $0) } ?? 0)
            writer.u8(start.botLevel)
            writer.u8(UInt8(start.players.count))
            for player in start.players {
                writer.u8(player.seat.rawValue)
                writer.string(player.name)
                writer.bytes(start.tokens[player.seat]?.bytes ?? WireCodec.noToken)
            }
        case .applied(let command, let events):
            switch command {
            case .deal(let seed):
                writer.u8(CommandTag.deal.rawValue)
                writer.u64(seed)
            case .finishDeal: writer.u8(CommandTag.finishDeal.rawValue)
            case .turn(let seat): write(.turn, seat, to: &writer)
            case .activateNext: writer.u8(CommandTag.activateNext.rawValue)
            case .snap(let seat): write(.snap, seat, to: &writer)
            case .leave(let seat): write(.leave, seat, to: &writer)
            case .absent(let seat): write(.absent, seat, to: &writer)
            case .returned(let seat): write(.returned, seat, to: &writer)
            }
            writer.u16(UInt16(events.count))
            // Every card named: the engine's event written as a seen one whose cards all show.
            for event in events { WireCodec.write(event, to: &writer) { $0.id } }
        case .ended(let reason):
            writer.string(String(decoding: reason.utf8.prefix(255), as: UTF8.self))
        case .committed(let commitment, let salt):
            writer.u32(commitment.round)
            writer.bytes(commitment.digest)
            writer.bytes(salt)
        case .revealed(let reveal):
            writer.u32(reveal.round)
            writer.u64(reveal.seed)
            writer.bytes(reveal.salt)
        }
    }

    private static func write(_ tag: CommandTag, _ seat: Seat, to writer: inout some ByteSink) {
        writer.u8(tag.rawValue)
        writer.u8(seat.rawValue)
    }

    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> MatchRecord {
        var reader = ByteReader<ProtocolError>(bytes, type: 0)
        let rawKind = try reader.u8()
        guard let kind = Kind(rawValue: rawKind) else { throw .unknownMessageType(rawKind) }
        let sequence = try reader.u64()
        let time = try reader.u64()
        let entry: MatchRecord.Entry
        switch kind {
        case .started:
            let hostName = try reader.string()
            let seed = try reader.u64()
            let turnLimit = try reader.u32()
            let startedAt = try reader.u64()
            let rounds = try reader.u32()
            let botLevel = try reader.u8()
            let count = try reader.count8(.seatedPlayers, in: 2...4)
            var players: [SeatedPlayer] = []
            var tokens: [Seat: SeatToken] = [:]
            for _ in 0..<count {
                let seat = try WireCodec.readSeat(&reader)
                // A seat twice would trap the engine (Game(seats:)) when the journal is replayed.
                guard !players.contains(where: { $0.seat == seat }) else { throw .duplicateSeat(seat) }
                players.append(SeatedPlayer(seat: seat, name: try reader.string()))
                tokens[seat] = SeatToken(bytes: try reader.bytes(16))
            }
            entry = .started(MatchStart(hostName: hostName, seed: seed, rules: Rules(turnLimit: turnLimit == 0 ? nil : Int(turnLimit)),
                                        players: players, startedAt: startedAt, tokens: tokens,
                                        rounds: rounds == 0 ? nil : Int(rounds), botLevel: botLevel))
        case .applied:
            let rawTag = try reader.u8()
            let command: Command
            switch CommandTag(rawValue: rawTag) {
            case .deal: command = .deal(seed: try reader.u64())
            case .finishDeal: command = .finishDeal
            case .turn: command = .turn(try WireCodec.readSeat(&reader))
            case .activateNext: command = .activateNext
            case .snap: command = .snap(try WireCodec.readSeat(&reader))
            case .leave: command = .leave(try WireCodec.readSeat(&reader))
            case .absent: command = .absent(try WireCodec.readSeat(&reader))
            case .returned: command = .returned(try WireCodec.readSeat(&reader))
            case nil: throw .unknownMessageType(rawTag)
            }
            let count = Int(try reader.u16())
            var events: [Event] = []
            for _ in 0..<count {
                guard let event = try WireCodec.readEvent(&reader).named else { throw .hiddenCardNotAllowed(eventTag: 0) }
                events.append(event)
            }
            entry = .applied(command, events)
        case .ended:
            entry = .ended(reason: try reader.string())
        case .committed:
            let round = try reader.u32()
            let digest = try reader.bytes(DealCommitment.digestLength)
            entry = .committed(DealCommitment(round: round, digest: digest), salt: try reader.bytes(DealReveal.saltLength))
        case .revealed:
            let round = try reader.u32()
            let seed = try reader.u64()
            entry = .revealed(DealReveal(round: round, seed: seed, salt: try reader.bytes(DealReveal.saltLength)))
        }
        try reader.finish()
        return MatchRecord(sequence: sequence, timeMicros: time, entry: entry)
    }
}

extension GameEvent where FaceDown == Card {
    /// This event with every card named, face down or not: for the host's own log only.
    public var named: SeatEvent { mapFaceDown { card, _ in card } }
}

extension GameEvent where FaceDown == Card? {
    /// The engine's event, if every card in it is named.
    public var named: Event? {
        try? mapFaceDown { card, _ in
            guard let card else { throw FaceDownCard() }
            return card
        }
    }
}

private struct FaceDownCard: Error {}
