/// The seats involved in a match, clockwise from the bottom: every seat whose top open
/// card shares its rank with another seat's top open card. Three or four of a rank,
/// or two pairs, are one match. Empty when there is no match.
public func matchingSeats(topCards: [(seat: Seat, card: Card)]) -> [Seat] {
    var seatsByRank = [[Seat]](repeating: [], count: 14)
    for (seat, card) in topCards {
        seatsByRank[Int(card.rank.rawValue)].append(seat)
    }
    return seatsByRank.filter { $0.count >= 2 }.flatMap { $0 }.sorted()
}

/// The same, read from each seat's top open card (nil: an empty open pile) without gathering
/// arrays: the engine judges every Snap! with it and each computer player looks after every
/// command. Nothing is allocated unless there is a match.
func matchingSeats(_ seats: [Seat], topCard: (Seat) -> Card?) -> [Seat] {
    // Four bits of rank per seat (1…13; 0: no card), at most four seats.
    var ranks: UInt16 = 0
    for seat in seats {
        guard let card = topCard(seat) else { continue }
        ranks |= UInt16(card.rank.rawValue) << (UInt16(seat.rawValue) * 4)
    }
    var matching: [Seat] = []
    for seat in Seat.allCases {
        let rank = ranks >> (UInt16(seat.rawValue) * 4) & 0xF
        guard rank != 0 else { continue }
        for other in Seat.allCases where other != seat && ranks >> (UInt16(other.rawValue) * 4) & 0xF == rank {
            matching.append(seat)
            break
        }
    }
    return matching
}
