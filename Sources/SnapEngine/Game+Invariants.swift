extension Game {
    /// Card conservation: the deck and the piles hold the 52 cards, each exactly once,
    /// and play never leaves an active player without a card to turn. Returns what is
    /// wrong, or nil.
    public func invariantViolation() -> String? {
        // A bit per card, the piles walked where they lie: the simulation checks this after
        // every event, so it gathers no arrays.
        var seen: UInt64 = 0
        var count = 0
        func hold(_ cards: [Card]) -> String? {
            for card in cards {
                let bit: UInt64 = 1 << UInt64(card.id)
                if seen & bit != 0 { return "\(card) is held twice" }
                seen |= bit
                count += 1
            }
            return nil
        }
        if let twice = hold(deck) { return twice }
        for seat in Seat.allCases {
            if let twice = hold(hand(seat).closed) ?? hold(hand(seat).open) { return twice }
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
