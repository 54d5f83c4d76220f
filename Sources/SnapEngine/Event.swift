/// Which of a seat's two piles.
public enum PileKind: UInt8, Hashable, Sendable, Codable {
    case closed, open
}

/// What happened, in order, precisely enough to animate every card and show every
/// status line. Generic over how a face-down card is written: the engine's own
/// events (`Event`) name every card; what a player may see (`SeatEvent`) has `nil`
/// for a card travelling face down, because no client learns a face-down card
/// before it is turned.
public enum GameEvent<FaceDown: Hashable & Sendable>: Hashable, Sendable {
    /// A round begins: every card is gathered into the deck, which is shuffled.
    case roundStarted(round: Int, startingSeat: Seat)
    /// The top card of the deck goes face down onto the top of `to`'s closed pile.
    case dealt(FaceDown, to: Seat)
    case dealFinished
    /// `seat` may now turn one card.
    case activated(Seat)
    /// The top of `seat`'s closed pile goes face up onto its open pile.
    case turned(Seat, Card)
    /// `seat`'s open pile is turned over and put under its closed pile (the card that
    /// was at the bottom of the open pile is now the top of the closed pile).
    case recycled(Seat, count: Int)
    case snapCalled(Seat)
    /// A correct call; `collected` events for each matching pile follow.
    case snapCorrect(caller: Seat, matching: [Seat])
    /// The whole open pile of `from` (listed bottom to top) is turned over and put
    /// under the closed pile of `to`.
    case collected(cards: [Card], from: Seat, to: Seat)
    /// A wrong call; `paid` (and perhaps `recycled`) events follow.
    case snapWrong(caller: Seat)
    /// The top of `from`'s closed pile goes to the bottom of `to`'s closed pile.
    case paid(FaceDown, from: Seat, to: Seat)
    /// A call after the first one judged since the last turn: nothing moves.
    case snapTooLate(Seat)
    /// `seat` has no cards left and is out of this round.
    case playerOut(Seat)
    case playerLeft(Seat)
    /// One card of a leaver goes from the top of its `pile` to the bottom of `to`'s closed pile.
    case handedOut(FaceDown, from: Seat, pile: PileKind, to: Seat)
    /// The optional turn limit ended the round (see `Rules.turnLimit`).
    case turnLimitReached
    case roundWon(Seat, wins: Int)
    /// The seat's player is away (their connection dropped): skipped, cards kept.
    case absent(Seat)
    /// The player is back; `activated` follows if the game was waiting for them.
    case returned(Seat)
    /// Everyone who could take the turn is away: nobody is active until one returns.
    case waiting
}

/// The engine's events: every card named.
public typealias Event = GameEvent<Card>
/// What a player may see: face-down cards travel as `nil`.
public typealias SeatEvent = GameEvent<Card?>

extension GameEvent {
    /// The same event with each card that may travel face down (`dealt`, `paid`,
    /// `handedOut`) rewritten; `transform` is told which pile the card comes from
    /// (`.closed` for dealt and paid cards). Every other field is kept as it is.
    @inlinable public func mapFaceDown<T: Hashable & Sendable>(
        _ transform: (FaceDown, _ from: PileKind) throws -> T
    ) rethrows -> GameEvent<T> {
        switch self {
        case .roundStarted(let round, let seat): .roundStarted(round: round, startingSeat: seat)
        case .dealt(let card, let to): .dealt(try transform(card, .closed), to: to)
        case .dealFinished: .dealFinished
        case .activated(let seat): .activated(seat)
        case .turned(let seat, let card): .turned(seat, card)
        case .recycled(let seat, let count): .recycled(seat, count: count)
        case .snapCalled(let seat): .snapCalled(seat)
        case .snapCorrect(let caller, let matching): .snapCorrect(caller: caller, matching: matching)
        case .collected(let cards, let from, let to): .collected(cards: cards, from: from, to: to)
        case .snapWrong(let caller): .snapWrong(caller: caller)
        case .paid(let card, let from, let to): .paid(try transform(card, .closed), from: from, to: to)
        case .snapTooLate(let seat): .snapTooLate(seat)
        case .playerOut(let seat): .playerOut(seat)
        case .playerLeft(let seat): .playerLeft(seat)
        case .handedOut(let card, let from, let pile, let to):
            .handedOut(try transform(card, pile), from: from, pile: pile, to: to)
        case .turnLimitReached: .turnLimitReached
        case .roundWon(let seat, let wins): .roundWon(seat, wins: wins)
        case .absent(let seat): .absent(seat)
        case .returned(let seat): .returned(seat)
        case .waiting: .waiting
        }
    }
}

extension GameEvent where FaceDown == Card {
    /// This event as any player sees it. Nobody sees a face-down card, not even its
    /// owner, so every seat (and a spectator) gets the same projection: only a card from
    /// an open pile (a leaver's, handed out) was face up for everyone already.
    public var seen: SeatEvent { mapFaceDown { card, pile in pile == .open ? card : nil } }
}
