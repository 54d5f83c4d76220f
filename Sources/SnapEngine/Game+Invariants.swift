extension Game {
    /// Card conservation: the deck and the piles hold the 52 cards, each exactly once,
    /// and play never leaves an active player without a card to turn. Returns what is
    /// wrong, or nil.
    public func invariantViolation() -> String? {
        // A bit per card, the piles walked where they lie: the host checks this after every
        // command (and the simulation after every event), so it gathers no arrays and copies
        // no hand.
        var seen: UInt64 = 0
        var twice: UInt64 = 0
        var count = deck.count
        Self.hold(deck, &seen, &twice)
        for index in hands.indices {
            count += hands[index].closed.count + hands[index].open.count
            Self.hold(hands[index].closed, &seen, &twice)
            Self.hold(hands[index].open, &seen, &twice)
        }
        if twice != 0 { return "\(firstHeldTwice()) is held twice" }
        if count != 52 { return "\(count) cards in play, not 52" }
        if phase != .lobby, !deck.isEmpty { return "\(deck.count) cards left in the deck after the deal" }
        for seat in Seat.allCases where !seats.contains(seat) || !hands[Int(seat.rawValue)].isPresent {
            if phase == .dealing || phase == .playing, hands[Int(seat.rawValue)].hasCards {
                return "\(seat) holds cards without playing"
            }
        }
        if phase == .playing, let active, !hasTurned, hands[Int(active.rawValue)].closed.isEmpty {
            return "the active player \(active) has nothing to turn"
        }
        return nil
    }

    /// A card's bit: suit × 16 + rank (1…61), distinct for each card, with no arithmetic to check.
    private static func bit(_ card: Card) -> UInt64 {
        UInt64(1) &<< (UInt64(card.suit.rawValue) &<< 4 | UInt64(card.rank.rawValue))
    }

    /// Marks each card's bit in `seen`, and in `twice` the bits that were marked already.
    private static func hold(_ cards: [Card], _ seen: inout UInt64, _ twice: inout UInt64) {
        cards.withUnsafeBufferPointer { cards in
            for card in cards {
                let bit = bit(card)
                twice |= seen & bit
                seen |= bit
            }
        }
    }

    /// The first card met a second time, walking the deck then each seat's piles (only
    /// once a card is known to be held twice).
    private func firstHeldTwice() -> Card {
        var seen: UInt64 = 0
        for card in deck + hands.flatMap({ $0.closed + $0.open }) {
            if seen & Self.bit(card) != 0 { return card }
            seen |= Self.bit(card)
        }
        preconditionFailure("no card is held twice")
    }

    /// The table as every player sees it right now (no face-down card named).
    public var table: TableView {
        // The seats are sorted already and every place is written below: no sorting, no
        // lookups (the host builds this after every command for its computer players).
        var view = TableView(sortedSeats: seats)
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
