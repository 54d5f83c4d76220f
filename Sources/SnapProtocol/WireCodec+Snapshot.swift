import SnapBytes
import SnapEngine

/// `snapshot` (docs/PROTOCOL.md): the table as every player may see it.
///
///     u32 round, u8 phase (0 lobby, 1 dealing, 2 playing, 3 round over),
///     seat winner (0xFF unless round over), seat active (0xFF: nobody), bool hasTurned,
///     u8 deckCount (0–52), u32 turnsThisRound, u8 count (2–4), then per seat:
///     seat, bool present, bool away, bool computerPlays, u8 closedCount, u32 wins,
///     u8 openCount, openCount × card (bottom first)
extension WireCodec {
    static func writeSnapshot(_ snapshot: TableSnapshot, to writer: inout ByteWriter) {
        let table = snapshot.table
        writer.u32(UInt32(clamping: table.round))
        switch table.phase {
        case .lobby: writer.u8(0); writer.u8(noSeat)
        case .dealing: writer.u8(1); writer.u8(noSeat)
        case .playing: writer.u8(2); writer.u8(noSeat)
        case .roundOver(let winner): writer.u8(3); writer.u8(winner.rawValue)
        }
        writer.u8(table.active?.rawValue ?? noSeat)
        writer.u8(table.hasTurned ? 1 : 0)
        writer.u8(UInt8(clamping: table.deckCount))
        writer.u32(snapshot.turnsThisRound)
        precondition((2...4).contains(table.seats.count), "a snapshot of \(table.seats.count) seats")
        writer.u8(UInt8(table.seats.count))
        for seat in table.seats {
            let place = table[seat]
            writer.u8(seat.rawValue)
            writer.u8(place.isPresent ? 1 : 0)
            writer.u8(place.isAbsent ? 1 : 0)
            writer.u8(snapshot.computerPlays.contains(seat) ? 1 : 0)
            writer.u8(UInt8(clamping: place.closedCount))
            writer.u32(UInt32(clamping: place.wins))
            writer.u8(UInt8(place.open.count))
            for card in place.open { writer.u8(card.id) }
        }
    }

    static func readSnapshot(_ reader: inout ByteReader<ProtocolError>) throws(ProtocolError) -> TableSnapshot {
        let round = Int(try reader.u32())
        let rawPhase = try reader.u8()
        let rawWinner = try reader.u8()
        let phase: Game.Phase
        if rawPhase != 3, rawWinner != noSeat { throw .badSeat(rawWinner) }  // only a finished round has a winner
        switch rawPhase {
        case 0: phase = .lobby
        case 1: phase = .dealing
        case 2: phase = .playing
        case 3:
            guard let winner = Seat(rawValue: rawWinner) else { throw .badSeat(rawWinner) }
            phase = .roundOver(winner: winner)
        default: throw .badPhase(rawPhase)
        }
        let rawActive = try reader.u8()
        let active: Seat?
        if rawActive == noSeat { active = nil } else {
            guard let seat = Seat(rawValue: rawActive) else { throw .badSeat(rawActive) }
            active = seat
        }
        let hasTurned = try readBool(&reader)
        let deckCount = Int(try reader.u8())
        guard deckCount <= 52 else { throw .countOutOfRange(.collectedCards, count: deckCount, allowed: 0...52) }
        let turns = try reader.u32()
        let count = try reader.count8(.seatedPlayers, in: 2...4)
        var seats: [Seat] = []
        var places: [(Seat, TableView.Place, Bool)] = []
        var total = deckCount
        for _ in 0..<count {
            let seat = try readSeat(&reader)
            guard !seats.contains(seat) else { throw .duplicateSeat(seat) }
            if let previous = seats.last, seat < previous { throw .seatsOutOfOrder(seat, after: previous) }
            seats.append(seat)
            var place = TableView.Place()
            place.isPresent = try readBool(&reader)
            place.isAbsent = try readBool(&reader)
            let computer = try readBool(&reader)
            place.closedCount = Int(try reader.u8())
            place.wins = Int(try reader.u32())
            let openCount = try reader.count8(.collectedCards, in: 0...52)
            for _ in 0..<openCount {
                let card = try readCard(&reader, tag: .turned)
                guard !place.open.contains(card) else { throw .duplicateCard(card) }
                place.open.append(card)
            }
            total += place.cardCount
            places.append((seat, place, computer))
        }
        guard total <= 52 else { throw .countOutOfRange(.collectedCards, count: total, allowed: 0...52) }
        if let active, !seats.contains(active) { throw .yourSeatNotPlaying(active) }
        var table = TableView(seats: seats)
        for (seat, place, _) in places { table[seat] = place }
        table.phase = phase
        table.round = round
        table.active = active
        table.hasTurned = hasTurned
        table.deckCount = deckCount
        return TableSnapshot(table: table, turnsThisRound: turns, computerPlays: places.filter(\.2).map(\.0))
    }
}
