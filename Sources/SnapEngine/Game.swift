/// The complete rules of Snap! as a deterministic value: the same commands (each deal
/// carries its seed) give the same states and events on every machine. No clocks, no I/O —
/// time is the caller's business (the host decides when to send `.activateNext`).
///
/// `apply(_:)` is the one door in. A refused command throws and leaves the game as it was.
public struct Game: Hashable, Sendable {
    public enum Phase: Hashable, Sendable {
        /// Before the first deal; the deck holds every card.
        case lobby
        /// Cards are dealt; nobody may turn until `.finishDeal`.
        case dealing
        case playing
        /// Someone won; the next `.deal` gathers the cards and starts another round.
        case roundOver(winner: Seat)
    }

    /// The seats taken at the start, in clockwise order. Leavers stay listed (see `Hand.isPresent`).
    public let seats: [Seat]
    public let rules: Rules
    public internal(set) var phase: Phase = .lobby
    /// The cards not held by anyone: all 52 in the lobby, none once dealt.
    public internal(set) var deck: [Card]
    public internal(set) var active: Seat?
    /// Whether the active player has turned their one card.
    public internal(set) var hasTurned = false
    /// Whether a Snap! call has been judged since the last card was turned.
    public private(set) var snapJudged = false
    public internal(set) var round = 0
    public internal(set) var startingSeat: Seat?
    public private(set) var turnsThisRound = 0
    var hands: [Hand]

    public init(seats: [Seat], rules: Rules = .original) {
        precondition(Set(seats).count == seats.count, "a seat is listed twice")
        self.seats = seats.sorted()
        self.rules = rules
        self.deck = Card.fullDeck
        self.hands = Seat.allCases.map { seat in
            var hand = Hand()
            hand.isPresent = seats.contains(seat)
            return hand
        }
    }

    public func hand(_ seat: Seat) -> Hand { hands[Int(seat.rawValue)] }

    // NB: `_modify`, not `set`: with a getter and a setter, `self[seat].closed.removeLast()`
    // copied the hand out, so its piles were shared and every move copied the whole pile
    // (and the hands array). Yielding the element in place keeps them uniquely referenced.
    private subscript(seat: Seat) -> Hand {
        get { hands[Int(seat.rawValue)] }
        _modify { yield &hands[Int(seat.rawValue)] }
    }

    /// Seats still in the game, clockwise from the bottom.
    public var presentSeats: [Seat] { seats.filter { self[$0].isPresent } }

    /// Seats that still hold cards: the ones who may snap, be paid or receive a leaver's cards.
    public var seatsWithCards: [Seat] { seats.filter { self[$0].isPresent && self[$0].hasCards } }

    /// The seats in the current match (empty when there is none).
    public var matching: [Seat] {
        matchingSeats(seats) { self[$0].open.last }
    }

    @discardableResult
    public mutating func apply(_ command: Command) throws(GameError) -> [Event] {
        var events: [Event] = []
        events.reserveCapacity(4)  // most commands cause one to four; a deal grows it once
        switch command {
        case .deal(let seed): try deal(seed: seed, &events)
        case .finishDeal: try finishDeal(&events)
        case .turn(let seat): try turn(seat, &events)
        case .activateNext: try activateNext(&events)
        case .snap(let seat): try snap(seat, &events)
        case .leave(let seat): try leave(seat, &events)
        case .absent(let seat): try absent(seat, &events)
        case .returned(let seat): try returned(seat, &events)
        }
        return events
    }

    // MARK: - Dealing

    private mutating func deal(seed: UInt64, _ events: inout [Event]) throws(GameError) {
        switch phase {
        case .lobby, .roundOver: break
        case .dealing, .playing: throw .roundInProgress
        }
        let players = presentSeats
        guard players.count >= 2 else { throw .notEnoughPlayers }

        let deal = Self.dealing(seed: seed, players: players,
                                start: startingSeat.map { players.clockwise(from: $0.clockwiseNext)[0] })
        round += 1
        startingSeat = deal.start
        turnsThisRound = 0
        active = nil
        hasTurned = false
        snapJudged = false
        events.append(.roundStarted(round: round, startingSeat: deal.start))

        // Every card is gathered, then dealt as the seed says.
        deck = []
        for seat in Seat.allCases {
            self[seat].closed.removeAll(keepingCapacity: true)
            self[seat].open.removeAll(keepingCapacity: true)
        }
        for (card, seat) in deal.cards {
            self[seat].closed.append(card)
            events.append(.dealt(card, to: seat))
        }
        phase = .dealing
    }

    /// What a deal from `seed` gives `players` (present, clockwise): the starting seat
    /// (`start`, or drawn from the seed for the first round) and each card in the order
    /// it is dealt, onto the top of its seat's closed pile. A pure function of its
    /// arguments, so a client can check a revealed seed against the deal it saw.
    public static func dealing(seed: UInt64, players: [Seat], start: Seat?) -> (start: Seat, cards: [(Card, Seat)]) {
        var random = SeededRandom(seed: seed)
        let start = start ?? players[random.below(players.count)]
        // A fixed order, then a shuffle: the deal depends only on the seed.
        var deck = Card.fullDeck
        random.shuffle(&deck)
        let order = players.clockwise(from: start)
        var cards: [(Card, Seat)] = []
        cards.reserveCapacity(deck.count)
        while let card = deck.popLast() {
            cards.append((card, order[cards.count % order.count]))
        }
        return (start, cards)
    }

    private mutating func finishDeal(_ events: inout [Event]) throws(GameError) {
        guard phase == .dealing, let start = startingSeat else { throw .notDealing }
        phase = .playing
        events.append(.dealFinished)
        activate(searchingFrom: start, &events)
    }

    // MARK: - Turns

    private mutating func turn(_ seat: Seat, _ events: inout [Event]) throws(GameError) {
        try requirePlaying()
        guard active == seat else { throw .notYourTurn(active: active) }
        guard !hasTurned else { throw .alreadyTurned }
        // `activate` only ever hands the turn to a seat with a closed card.
        let card = self[seat].closed.removeLast()
        self[seat].open.append(card)
        hasTurned = true
        snapJudged = false
        turnsThisRound += 1
        events.append(.turned(seat, card))
    }

    private mutating func activateNext(_ events: inout [Event]) throws(GameError) {
        try requirePlaying()
        guard hasTurned, let current = active else { throw .noTurnYet }
        if let limit = rules.turnLimit, turnsThisRound >= limit {
            events.append(.turnLimitReached)
            let order = presentSeats.clockwise(from: startingSeat ?? .bottom)
            let most = order.map { self[$0].cardCount }.max() ?? 0
            win(order.first { self[$0].cardCount == most }!, &events)
            return
        }
        activate(searchingFrom: current.clockwiseNext, &events)
    }

    /// Gives the turn to the first seat, clockwise from `start` (inclusive), that can
    /// play: skipping players with no cards, or with no closed cards and a single open
    /// one; a player with no closed cards and two or more open ones recycles first.
    private mutating func activate(searchingFrom start: Seat, _ events: inout [Event]) {
        for seat in Seat.Clockwise(from: start) where seats.contains(seat) && self[seat].isPresent && !self[seat].isAbsent {
            // Counts read first: a copy of the hand held across `recycle()` would copy its piles.
            if self[seat].closed.isEmpty {
                let count = self[seat].open.count
                guard count >= 2 else { continue }
                self[seat].recycle()
                events.append(.recycled(seat, count: count))
            }
            active = seat
            hasTurned = false
            events.append(.activated(seat))
            return
        }
        // Everyone who could play is away: the game waits for one of them to return.
        // (With nobody away this is unreachable: 52 cards among at most four players
        // means someone holds two or more.)
        precondition(seats.contains { self[$0].isAbsent }, "no player can take a turn")
        active = nil
        hasTurned = false
        events.append(.waiting)
    }

    /// After cards moved, the active player who has not turned yet may have lost their
    /// closed pile: they recycle, or the turn passes on.
    private mutating func keepActivePlayable(_ events: inout [Event]) {
        guard phase == .playing, let current = active, !hasTurned, self[current].closed.isEmpty else { return }
        activate(searchingFrom: current, &events)
    }

    // MARK: - Snap!

    private mutating func snap(_ caller: Seat, _ events: inout [Event]) throws(GameError) {
        switch phase {
        case .playing: break
        case .dealing: throw .stillDealing
        case .lobby, .roundOver: throw .notPlaying
        }
        guard seats.contains(caller), self[caller].isPresent else { throw .notSeated(caller) }
        guard self[caller].hasCards else { throw .noCards(caller) }

        events.append(.snapCalled(caller))
        guard !snapJudged else {
            events.append(.snapTooLate(caller))
            return
        }
        snapJudged = true

        let matching = self.matching
        if matching.isEmpty {
            events.append(.snapWrong(caller: caller))
            pay(from: caller, &events)
        } else {
            events.append(.snapCorrect(caller: caller, matching: matching))
            for seat in matching.clockwise(from: caller) {
                let cards = self[seat].open
                self[seat].open.removeAll(keepingCapacity: true)
                self[caller].closed.insert(contentsOf: cards.reversed(), at: 0)
                events.append(.collected(cards: cards, from: seat, to: caller))
                if !self[seat].hasCards { events.append(.playerOut(seat)) }
            }
        }
        if !endRoundIfWon(&events) {
            keepActivePlayable(&events)
        }
    }

    /// A wrong call: one card to each other player with cards, clockwise from the caller,
    /// recycling when the closed pile runs out, paying whom it can when short.
    private mutating func pay(from caller: Seat, _ events: inout [Event]) {
        let receivers = seatsWithCards.clockwise(from: caller).filter { $0 != caller }
        // Too few closed cards: recycle first, then pay (the open pile goes under the
        // closed one, so the same cards leave in the same order either way).
        if self[caller].closed.count < receivers.count, !self[caller].open.isEmpty {
            let count = self[caller].open.count
            self[caller].recycle()
            events.append(.recycled(caller, count: count))
        }
        for receiver in receivers {
            guard !self[caller].closed.isEmpty else { break }
            let card = self[caller].closed.removeLast()
            self[receiver].closed.insert(card, at: 0)
            events.append(.paid(card, from: caller, to: receiver))
        }
        if !self[caller].hasCards { events.append(.playerOut(caller)) }
    }

    // MARK: - Leaving

    private mutating func leave(_ seat: Seat, _ events: inout [Event]) throws(GameError) {
        guard seats.contains(seat), self[seat].isPresent else { throw .notSeated(seat) }
        self[seat].isPresent = false
        events.append(.playerLeft(seat))

        switch phase {
        case .lobby, .roundOver:
            // Nothing is in play; the next deal gathers whatever the leaver held.
            return
        case .dealing, .playing:
            break
        }
        let receivers = seatsWithCards.clockwise(from: seat)
        // While a round is on, nobody else can be without cards: one player would hold all 52.
        precondition(!receivers.isEmpty, "a leaver's cards have nowhere to go")
        // The original's order (RULES.md): the open pile from its top down, then the closed
        // pile from its top down, one card to each receiver in turn.
        var next = 0
        for pile in [PileKind.open, .closed] {
            while let card = pile == .closed ? self[seat].closed.popLast() : self[seat].open.popLast() {
                let receiver = receivers[next % receivers.count]
                self[receiver].closed.insert(card, at: 0)
                events.append(.handedOut(card, from: seat, pile: pile, to: receiver))
                next += 1
            }
        }
        if endRoundIfWon(&events) { return }
        if phase == .playing, active == seat {
            activate(searchingFrom: seat.clockwiseNext, &events)
        }
    }

    // MARK: - Away and back

    private mutating func absent(_ seat: Seat, _ events: inout [Event]) throws(GameError) {
        guard seats.contains(seat), self[seat].isPresent else { throw .notSeated(seat) }
        guard !self[seat].isAbsent else { throw .alreadyAbsent(seat) }
        self[seat].isAbsent = true
        events.append(.absent(seat))
        // An away player's turn passes on, unless their card is already down.
        if phase == .playing, active == seat, !hasTurned {
            activate(searchingFrom: seat.clockwiseNext, &events)
        }
    }

    private mutating func returned(_ seat: Seat, _ events: inout [Event]) throws(GameError) {
        guard seats.contains(seat), self[seat].isPresent else { throw .notSeated(seat) }
        guard self[seat].isAbsent else { throw .notAbsent(seat) }
        self[seat].isAbsent = false
        events.append(.returned(seat))
        // The game was waiting for someone: the returner (or the next who can) plays.
        if phase == .playing, active == nil { activate(searchingFrom: seat, &events) }
    }

    // MARK: - Winning

    private mutating func endRoundIfWon(_ events: inout [Event]) -> Bool {
        guard let winner = seats.first(where: { self[$0].cardCount == Card.fullDeck.count }) else {
            return false
        }
        win(winner, &events)
        return true
    }

    private mutating func win(_ winner: Seat, _ events: inout [Event]) {
        phase = .roundOver(winner: winner)
        active = nil
        hasTurned = false
        self[winner].wins += 1
        events.append(.roundWon(winner, wins: self[winner].wins))
    }

    private func requirePlaying() throws(GameError) {
        switch phase {
        case .playing: return
        case .dealing: throw .stillDealing
        case .lobby, .roundOver: throw .notPlaying
        }
    }
}
