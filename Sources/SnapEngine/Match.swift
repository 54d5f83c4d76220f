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
