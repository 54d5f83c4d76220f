@testable import SnapEngine

extension Game {
    /// A game in the middle of a round, arranged pile by pile (tests only: the rules' one
    /// door in is `apply`). Piles are listed bottom first. Cards not named anywhere go to
    /// the bottom of `rest`'s closed pile, so all 52 are always in play.
    static func arranged(
        closed: [Seat: [Card]],
        open: [Seat: [Card]] = [:],
        active: Seat,
        hasTurned: Bool = false,
        rest: Seat? = nil,
        seats: [Seat]? = nil,
        wins: [Seat: Int] = [:],
        rules: Rules = .original
    ) -> Game {
        let seated = seats ?? Array(Set(closed.keys).union(open.keys)).sorted()
        var game = Game(seats: seated, rules: rules)
        let named = Set(closed.values.joined()).union(open.values.joined())
        let unnamed = Card.fullDeck.filter { !named.contains($0) }
        for seat in seated {
            game.hands[Int(seat.rawValue)].closed = closed[seat] ?? []
            game.hands[Int(seat.rawValue)].open = open[seat] ?? []
            game.hands[Int(seat.rawValue)].wins = wins[seat] ?? 0
        }
        if !unnamed.isEmpty {
            let holder = rest ?? active
            game.hands[Int(holder.rawValue)].closed.insert(contentsOf: unnamed, at: 0)
        }
        game.deck = []
        game.phase = .playing
        game.round = 1
        game.startingSeat = seated.first
        game.active = active
        game.hasTurned = hasTurned
        precondition(game.invariantViolation() == nil, game.invariantViolation() ?? "")
        return game
    }
}
