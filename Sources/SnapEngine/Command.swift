/// Everything that can happen to a game, as one value. The host turns player intents
/// and its own timers into commands; `Game.apply(_:)` is the only way in.
public enum Command: Hashable, Sendable, Codable {
    /// Shuffle and deal a round: the first one, or the next after a round was won. The
    /// seed alone fixes the deal (and the first round's starting seat): the host draws a
    /// fresh secret one per round and commits to it before dealing (docs/PROTOCOL.md).
    case deal(seed: UInt64)
    /// The deal animation is over: the starting player becomes active.
    case finishDeal
    /// The active player turns the top card of their closed pile.
    case turn(Seat)
    /// The host's follow-up about 0.5 s after a turn: the next player clockwise.
    case activateNext
    /// A player calls Snap!.
    case snap(Seat)
    /// A player leaves the game (quit, or a dropped connection past its grace period).
    case leave(Seat)
    /// A player's connection dropped: the seat keeps its cards and is skipped until
    /// `.returned` (or `.leave` when the grace period ends).
    case absent(Seat)
    case returned(Seat)
}

/// Why a command was refused. A refused command never changes the game.
public enum GameError: Error, Hashable, Sendable {
    case notEnoughPlayers
    case roundInProgress
    case notDealing
    case stillDealing
    case notPlaying
    case notSeated(Seat)
    case notYourTurn(active: Seat?)
    case alreadyTurned
    case noTurnYet
    case noCards(Seat)
    case alreadyAbsent(Seat)
    case notAbsent(Seat)
}

extension GameError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notEnoughPlayers: "at least two players must be seated to deal"
        case .roundInProgress: "a round is already in progress"
        case .notDealing: "no deal is in progress"
        case .stillDealing: "the cards are still being dealt"
        case .notPlaying: "no round is being played"
        case .notSeated(let seat): "no player sits at \(seat)"
        case .notYourTurn(let active): "it is \(active.map { "\($0)'s" } ?? "nobody's") turn"
        case .alreadyTurned: "one card per turn: this player has already turned"
        case .noTurnYet: "the active player has not turned a card yet"
        case .noCards(let seat): "the player at \(seat) has no cards"
        case .alreadyAbsent(let seat): "the player at \(seat) is already away"
        case .notAbsent(let seat): "the player at \(seat) is not away"
        }
    }
}
