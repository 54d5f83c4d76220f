@testable import SnapEngine

/// "AS", "10H", "QD" → a card. Tests read like a table of cards.
func card(_ name: String) -> Card {
    let suitLetter = name.last!
    let rankLabel = String(name.dropLast())
    let suit = Suit.allCases.first { $0.letter == suitLetter }!
    let rank = Rank.allCases.first { $0.label == rankLabel }!
    return Card(rank, suit)
}

func cards(_ names: String) -> [Card] {
    names.split(separator: " ").map { card(String($0)) }
}

extension Game {
    /// Applies a command that must be legal.
    @discardableResult
    mutating func must(_ command: Command) -> [Event] {
        do {
            return try apply(command)
        } catch {
            fatalError("\(command) was refused: \(error)")
        }
    }

    /// A fresh game dealt and ready to play.
    static func started(seats: [Seat], seed: UInt64) -> Game {
        var game = Game(seats: seats)
        game.must(.deal(seed: seed))
        game.must(.finishDeal)
        return game
    }
}
