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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        encode(record, into: &bytes)
        return bytes
    }

    /// Appends the record's encoding to `bytes` (a journal writer's buffer: no array of its own).
    public static func encode(_ record: MatchRecord, into bytes: inout [UInt8]) {
        // Nearly every record is an `applied` one, encoded on the host's path for each
        // command: it has its own encoder; the one below writes the other kinds.
        if case .applied(let command, let events) = record.entry {
            encodeApplied(sequence: record.sequence, timeMicros: record.timeMicros, command: command, events: events, into: &bytes)
            return
        }
        // NB: no closure around `encode`: capturing the record copied it (its entry through
        // the enum's value witnesses) for every record.
        var writer = ByteWriter(continuing: &bytes)
        encode(record, &writer)
        writer.finish(into: &bytes)
    }

    /// An `applied` record's bytes (docs/JOURNAL.md lays them out). Its fixed part (kind,
    /// sequence, time, command, event count: 28 bytes at most) is stored into a buffer on the
    /// stack and appended at once, and a `turned` event (most of them) is written in place:
    /// through `ByteWriter` each field cost a capacity check per byte, the 8-byte ones a
    /// generic `append(contentsOf:)`, and the record was copied for its `switch`.
    private static func encodeApplied(sequence: UInt64, timeMicros: UInt64, command: Command, events: [Event],
                                      into bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { head in
            let raw = UnsafeMutableRawBufferPointer(head)
            head[0] = Kind.applied.rawValue
            raw.storeBytes(of: sequence.bigEndian, toByteOffset: 1, as: UInt64.self)
            raw.storeBytes(of: timeMicros.bigEndian, toByteOffset: 9, as: UInt64.self)
            var end = 18  // after the command's tag, at 17
            switch command {
            case .deal(let seed):
                head[17] = CommandTag.deal.rawValue
                raw.storeBytes(of: seed.bigEndian, toByteOffset: 18, as: UInt64.self)
                end = 26
            case .finishDeal: head[17] = CommandTag.finishDeal.rawValue
            case .turn(let seat): head[17] = CommandTag.turn.rawValue; head[18] = seat.rawValue; end = 19
            case .activateNext: head[17] = CommandTag.activateNext.rawValue
            case .snap(let seat): head[17] = CommandTag.snap.rawValue; head[18] = seat.rawValue; end = 19
            case .leave(let seat): head[17] = CommandTag.leave.rawValue; head[18] = seat.rawValue; end = 19
            case .absent(let seat): head[17] = CommandTag.absent.rawValue; head[18] = seat.rawValue; end = 19
            case .returned(let seat): head[17] = CommandTag.returned.rawValue; head[18] = seat.rawValue; end = 19
            }
            raw.storeBytes(of: UInt16(events.count).bigEndian, toByteOffset: end, as: UInt16.self)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: head[..<(end + 2)]))
        }
        for event in events {
            // The two events of almost every command, as `WireCodec.write` writes them.
            if case .turned(let seat, let card) = event {
                bytes.append(WireCodec.EventTag.turned.rawValue)
                bytes.append(seat.rawValue)
                bytes.append(card.id)
            } else if case .activated(let seat) = event {
                bytes.append(WireCodec.EventTag.activated.rawValue)
                bytes.append(seat.rawValue)
            } else {
                // Every card named: the engine's event written as a seen one whose cards all show.
                var writer = ByteWriter(continuing: &bytes)
                WireCodec.write(event.named, to: &writer)
                writer.finish(into: &bytes)
            }
        }
    }

    private static func encode(_ record: MatchRecord, _ writer: inout ByteWriter) {
        switch record.entry {
        case .started: writer.u8(Kind.started.rawValue)
        case .applied: preconditionFailure("an applied record has its own encoder, encodeApplied")
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
        case .applied: break  // not reached: see above
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

    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> MatchRecord {
        var reader = ByteReader(bytes, type: 0)
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
