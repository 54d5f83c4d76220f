extension Game {
    /// Card conservation: the deck and the piles hold the 52 cards, each exactly once,
    /// and play never leaves an active player without a card to turn. Returns what is
    /// wrong, or nil.
    public func invariantViolation() -> String? {
        var seen = [Bool](repeating: false, count: 52)
        var count = 0
        for card in deck + Seat.allCases.flatMap({ hand($0).closed + hand($0).open }) {
            if seen[Int(card.id)] { return "\(card) is held twice" }
            seen[Int(card.id)] = true
            count += 1
        }
        if count != 52 { return "\(count) cards in play, not 52" }
        if phase != .lobby, !deck.isEmpty { return "\(deck.count) cards left in the deck after the deal" }
        for seat in Seat.allCases where !seats.contains(seat) || !hand(seat).isPresent {
            if phase == .dealing || phase == .playing, hand(seat).hasCards {
                return "\(seat) holds cards without playing"
            }
        }
        if phase == .playing, let active, !hasTurned, hand(active).closed.isEmpty {
            return "the active player \(active) has nothing to turn"
        }
        return nil
    }

    /// The table as every player sees it right now (no face-down card named).
    public var table: TableView {
        var view = TableView(seats: seats)
        view.phase = phase
        view.deckCount = deck.count
        view.active = active
        view.hasTurned = hasTurned
        view.round = round
        for seat in seats {
            let hand = hand(seat)
            view.places[Int(seat.rawValue)] = TableView.Place(
                closedCount: hand.closed.count, open: hand.open, wins: hand.wins, isPresent: hand.isPresent,
                isAbsent: hand.isAbsent)
        }
        return view
    }
}
