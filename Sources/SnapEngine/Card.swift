/// A card's suit. Suits never matter for a match; they only tell cards apart.
public enum Suit: UInt8, CaseIterable, Sendable, Codable {
    case clubs, diamonds, hearts, spades

    public var symbol: String {
        switch self {
        case .clubs: "♣"
        case .diamonds: "♦"
        case .hearts: "♥"
        case .spades: "♠"
        }
    }

    public var letter: Character {
        switch self {
        case .clubs: "C"
        case .diamonds: "D"
        case .hearts: "H"
        case .spades: "S"
        }
    }

    public var isRed: Bool { self == .diamonds || self == .hearts }
}

/// Ace is 1, King is 13.
public enum Rank: UInt8, CaseIterable, Sendable, Codable, Comparable {
    case ace = 1, two, three, four, five, six, seven, eight, nine, ten, jack, queen, king

    public static func < (a: Rank, b: Rank) -> Bool { a.rawValue < b.rawValue }

    public var label: String {
        switch self {
        case .ace: "A"
        case .jack: "J"
        case .queen: "Q"
        case .king: "K"
        default: String(rawValue)
        }
    }
}

/// One of the 52 cards. Its `id` (0–51) is its identity on the wire and in journals.
public struct Card: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rank: Rank
    public let suit: Suit

    public init(_ rank: Rank, _ suit: Suit) {
        self.rank = rank
        self.suit = suit
    }

    public var id: UInt8 { suit.rawValue * 13 + (rank.rawValue - 1) }

    public init?(id: UInt8) {
        guard id < 52, let suit = Suit(rawValue: id / 13), let rank = Rank(rawValue: id % 13 + 1) else {
            return nil
        }
        self.init(rank, suit)
    }

    /// "AS", "10H", "QD": the short name used in logs, tests and asset file names.
    public var description: String { rank.label + String(suit.letter) }

    /// All 52 cards in a fixed order (by id).
    public static let fullDeck: [Card] = (0..<52).map { Card(id: UInt8($0))! }
}
