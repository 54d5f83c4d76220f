import SnapBytes
import SnapEngine

extension WireCodec {
    /// The first byte of each encoded event.
    enum EventTag: UInt8 {
        case roundStarted = 1, dealt, dealFinished, activated, turned, recycled, snapCalled, snapCorrect,
            collected, snapWrong, paid, snapTooLate, playerOut, playerLeft, handedOut, turnLimitReached,
            roundWon, absent, returned, waiting
    }

    static let recycledRange = 1...52
    static let matchingRange = 2...4
    static let collectedRange = 1...52

    // MARK: - Encoding

    static func write(_ event: SeatEvent, to writer: inout some ByteSink) {
        write(event, to: &writer) { $0?.id ?? hiddenCard }
    }

    /// Any event's bytes, a face-down card written as `faceDownID` gives it: the same
    /// bytes for a seen event and for the engine's (a match record's, every card named).
    /// Inlined, so that the caller's writer stays in registers (see `MatchRecordCodec.encode`).
    @inline(__always) static func write<FaceDown>(_ event: GameEvent<FaceDown>, to writer: inout some ByteSink,
                                faceDownID: (FaceDown) -> UInt8) {
        switch event {
        case .roundStarted(let round, let seat):
            writer.u8(EventTag.roundStarted.rawValue)
            writer.u32(u32(round, "round"))
            writer.u8(seat.rawValue)
        case .dealt(let card, let to):
            writer.u8(EventTag.dealt.rawValue)
            writer.u8(faceDownID(card))
            writer.u8(to.rawValue)
        case .dealFinished:
            writer.u8(EventTag.dealFinished.rawValue)
        case .activated(let seat):
            writer.u8(EventTag.activated.rawValue)
            writer.u8(seat.rawValue)
        case .turned(let seat, let card):
            writer.u8(EventTag.turned.rawValue)
            writer.u8(seat.rawValue)
            writer.u8(card.id)
        case .recycled(let seat, let count):
            precondition(recycledRange.contains(count), "recycled \(count) cards")
            writer.u8(EventTag.recycled.rawValue)
            writer.u8(seat.rawValue)
            writer.u8(UInt8(count))
        case .snapCalled(let seat):
            writer.u8(EventTag.snapCalled.rawValue)
            writer.u8(seat.rawValue)
        case .snapCorrect(let caller, let matching):
            precondition(matchingRange.contains(matching.count), "\(matching.count) matching seats")
            precondition(Self.distinct(matching.lazy.map { $0.rawValue }), "duplicate matching seats \(matching)")
            writer.u8(EventTag.snapCorrect.rawValue)
            writer.u8(caller.rawValue)
            writer.u8(UInt8(matching.count))
            for seat in matching { writer.u8(seat.rawValue) }
        case .collected(let cards, let from, let to):
            precondition(collectedRange.contains(cards.count), "collected \(cards.count) cards")
            precondition(Self.distinct(cards.lazy.map { $0.id }), "duplicate collected cards \(cards)")
            writer.u8(EventTag.collected.rawValue)
            writer.u8(from.rawValue)
            writer.u8(to.rawValue)
            writer.u8(UInt8(cards.count))
            for card in cards { writer.u8(card.id) }
        case .snapWrong(let caller):
            writer.u8(EventTag.snapWrong.rawValue)
            writer.u8(caller.rawValue)
        case .paid(let card, let from, let to):
            writer.u8(EventTag.paid.rawValue)
            writer.u8(faceDownID(card))
            writer.u8(from.rawValue)
            writer.u8(to.rawValue)
        case .snapTooLate(let seat):
            writer.u8(EventTag.snapTooLate.rawValue)
            writer.u8(seat.rawValue)
        case .playerOut(let seat):
            writer.u8(EventTag.playerOut.rawValue)
            writer.u8(seat.rawValue)
        case .playerLeft(let seat):
            writer.u8(EventTag.playerLeft.rawValue)
            writer.u8(seat.rawValue)
        case .handedOut(let card, let from, let pile, let to):
            writer.u8(EventTag.handedOut.rawValue)
            writer.u8(faceDownID(card))
            writer.u8(from.rawValue)
            writer.u8(pile.rawValue)
            writer.u8(to.rawValue)
        case .turnLimitReached:
            writer.u8(EventTag.turnLimitReached.rawValue)
        case .roundWon(let seat, let wins):
            writer.u8(EventTag.roundWon.rawValue)
            writer.u8(seat.rawValue)
            writer.u32(u32(wins, "wins"))
        case .absent(let seat):
            writer.u8(EventTag.absent.rawValue)
            writer.u8(seat.rawValue)
        case .returned(let seat):
            writer.u8(EventTag.returned.rawValue)
            writer.u8(seat.rawValue)
        case .waiting:
            writer.u8(EventTag.waiting.rawValue)
        }
    }

    /// Whether no value (below 64) is there twice: a bit each, not a `Set` per event.
    private static func distinct(_ values: some Sequence<UInt8>) -> Bool {
        var seen: UInt64 = 0
        for value in values {
            let bit = UInt64(1) &<< UInt64(value & 63)
            if seen & bit != 0 { return false }
            seen |= bit
        }
        return true
    }

    private static func u32(_ value: Int, _ what: String) -> UInt32 {
        guard let value = UInt32(exactly: value) else {
            preconditionFailure("\(what) \(value) does not fit in a u32")
        }
        return value
    }

    // MARK: - Decoding

    static func readEvent(_ reader: inout ByteReader<ProtocolError>) throws(ProtocolError) -> SeatEvent {
        let raw = try reader.u8()
        guard let tag = EventTag(rawValue: raw) else { throw .unknownEventTag(raw) }
        switch tag {
        case .roundStarted:
            let round = try reader.u32()
            return .roundStarted(round: Int(round), startingSeat: try readSeat(&reader))
        case .dealt:
            let card = try readOptionalCard(&reader)
            return .dealt(card, to: try readSeat(&reader))
        case .dealFinished:
            return .dealFinished
        case .activated:
            return .activated(try readSeat(&reader))
        case .turned:
            let seat = try readSeat(&reader)
            return .turned(seat, try readCard(&reader, tag: tag))
        case .recycled:
            let seat = try readSeat(&reader)
            return .recycled(seat, count: try reader.count8(.recycledCards, in: recycledRange))
        case .snapCalled:
            return .snapCalled(try readSeat(&reader))
        case .snapCorrect:
            let caller = try readSeat(&reader)
            let count = try reader.count8(.matchingSeats, in: matchingRange)
            var matching: [Seat] = []
            for _ in 0..<count {
                let seat = try readSeat(&reader)
                guard !matching.contains(seat) else { throw .duplicateSeat(seat) }
                matching.append(seat)
            }
            return .snapCorrect(caller: caller, matching: matching)
        case .collected:
            let from = try readSeat(&reader)
            let to = try readSeat(&reader)
            let count = try reader.count8(.collectedCards, in: collectedRange)
            var seen = [Bool](repeating: false, count: 52)
            var cards: [Card] = []
            cards.reserveCapacity(count)
            for _ in 0..<count {
                let card = try readCard(&reader, tag: tag)
                guard !seen[Int(card.id)] else { throw .duplicateCard(card) }
                seen[Int(card.id)] = true
                cards.append(card)
            }
            return .collected(cards: cards, from: from, to: to)
        case .snapWrong:
            return .snapWrong(caller: try readSeat(&reader))
        case .paid:
            let card = try readOptionalCard(&reader)
            let from = try readSeat(&reader)
            return .paid(card, from: from, to: try readSeat(&reader))
        case .snapTooLate:
            return .snapTooLate(try readSeat(&reader))
        case .playerOut:
            return .playerOut(try readSeat(&reader))
        case .playerLeft:
            return .playerLeft(try readSeat(&reader))
        case .handedOut:
            let card = try readOptionalCard(&reader)
            let from = try readSeat(&reader)
            let rawPile = try reader.u8()
            guard let pile = PileKind(rawValue: rawPile) else { throw .badPile(rawPile) }
            return .handedOut(card, from: from, pile: pile, to: try readSeat(&reader))
        case .turnLimitReached:
            return .turnLimitReached
        case .roundWon:
            let seat = try readSeat(&reader)
            return .roundWon(seat, wins: Int(try reader.u32()))
        case .absent:
            return .absent(try readSeat(&reader))
        case .returned:
            return .returned(try readSeat(&reader))
        case .waiting:
            return .waiting
        }
    }
}
