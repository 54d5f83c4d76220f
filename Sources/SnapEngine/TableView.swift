/// The table as a player sees it: counts of face-down cards, every face-up card, who
/// is active, the score. Kept up to date by applying `SeatEvent`s in order, so a
/// client (or a bot) mirrors the game without ever holding a hidden card; for any
/// game, `game.table` equals a view that applied all its events since the start.
public struct TableView: Hashable, Sendable {
    public struct Place: Hashable, Sendable {
        public var closedCount = 0
        /// Bottom first; the last card is the one showing.
        public var open: [Card] = []
        public var wins = 0
        public var isPresent = true
        /// Away: the connection dropped and the seat waits for its player.
        public var isAbsent = false

        public init(closedCount: Int = 0, open: [Card] = [], wins: Int = 0, isPresent: Bool = true, isAbsent: Bool = false) {
            self.closedCount = closedCount
            self.open = open
            self.wins = wins
            self.isPresent = isPresent
            self.isAbsent = isAbsent
        }

        public var cardCount: Int { closedCount + open.count }
        public var hasCards: Bool { cardCount > 0 }
    }

    public let seats: [Seat]
    public var places: [Place]
    public var phase: Game.Phase = .lobby
    public var deckCount = 52
    public var active: Seat?
    public var hasTurned = false
    public var round = 0

    public init(seats: [Seat]) {
        self.seats = seats.sorted()
        places = Seat.allCases.map { Place(isPresent: seats.contains($0)) }
    }

    /// Seats already sorted; every place empty and absent from the table until written.
    init(sortedSeats seats: [Seat]) {
        self.seats = seats
        places = [Place](repeating: Place(isPresent: false), count: 4)
    }

    // NB: `_modify` yields the place in place: with a setter, `self[seat].open.append(card)`
    // copied the open pile on every turned card.
    public subscript(seat: Seat) -> Place {
        get { places[Int(seat.rawValue)] }
        _modify { yield &places[Int(seat.rawValue)] }
    }

    /// The seats in the current match (empty when there is none).
    public var matching: [Seat] {
        matchingSeats(seats) { self[$0].open.last }
    }

    public mutating func apply(_ event: SeatEvent) {
        switch event {
        case .roundStarted(let round, _):
            self.round = round
            deckCount = 52
            for seat in Seat.allCases {
                self[seat].closedCount = 0
                self[seat].open = []
            }
            active = nil
            hasTurned = false
            phase = .dealing
        case .dealt(_, let seat):
            deckCount -= 1
            self[seat].closedCount += 1
        case .dealFinished:
            phase = .playing
        case .activated(let seat):
            active = seat
            hasTurned = false
        case .turned(let seat, let card):
            self[seat].closedCount -= 1
            self[seat].open.append(card)
            hasTurned = true
        case .recycled(let seat, let count):
            self[seat].closedCount += count
            self[seat].open = []
        case .collected(let cards, let from, let to):
            self[from].open.removeAll()
            self[to].closedCount += cards.count
        case .paid(_, let from, let to):
            self[from].closedCount -= 1
            self[to].closedCount += 1
        case .playerLeft(let seat):
            self[seat].isPresent = false
            if active == seat { active = nil }
        case .handedOut(_, let from, let pile, let to):
            switch pile {
            case .closed: self[from].closedCount -= 1
            case .open: self[from].open.removeLast()
            }
            self[to].closedCount += 1
        case .roundWon(let seat, let wins):
            self[seat].wins = wins
            phase = .roundOver(winner: seat)
            active = nil
            hasTurned = false
        case .absent(let seat):
            self[seat].isAbsent = true
        case .returned(let seat):
            self[seat].isAbsent = false
        case .waiting:
            active = nil
            hasTurned = false
        case .snapCalled, .snapCorrect, .snapWrong, .snapTooLate, .playerOut, .turnLimitReached:
            break
        }
    }

    /// Every card accounted for: the deck, the face-down counts and the open piles add up to 52.
    public var cardTotal: Int { deckCount + seats.reduce(0) { $0 + self[$1].cardCount } }
}
