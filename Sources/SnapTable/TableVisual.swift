import SnapEngine

/// A sound the table asks for; the window plays it (or not, muted or without audio).
public enum TableSound: CaseIterable, Sendable { case deal, flick, correct, wrong, win }

/// The table as it is *drawn*: it lags the session's `TableView` while cards are in the
/// air. A card leaves its pile here when its flight begins and joins the next pile when
/// it lands, so no card is ever drawn twice.
package struct TableVisual: Equatable {
    package enum Tone: Equatable { case normal, good, bad, mine }

    package var closed = [Int](repeating: 0, count: 4)
    /// Bottom first, as in `TableView.Place.open`.
    package var open = [[Card]](repeating: [], count: 4)
    package var wins = [Int](repeating: 0, count: 4)
    package var present = [Bool](repeating: false, count: 4)
    package var deck = 0
    package var active: Seat?
    package var round = 0
    package var status = ""
    package var tone = Tone.normal
    /// The round is over and its cards have slid off the table.
    package var cleared = false
    /// A short line shown over the status until a time ("Too late!"), leaving the status as it is.
    package var notice: Notice?

    package struct Notice: Equatable {
        package var text: String
        package var tone: Tone
        package var until: Double

        package init(text: String, tone: Tone, until: Double) {
            self.text = text
            self.tone = tone
            self.until = until
        }
    }

    package subscript(closed seat: Seat) -> Int {
        get { closed[Int(seat.rawValue)] }
        set { closed[Int(seat.rawValue)] = newValue }
    }

    package subscript(open seat: Seat) -> [Card] {
        get { open[Int(seat.rawValue)] }
        set { open[Int(seat.rawValue)] = newValue }
    }

    package func cardCount(_ seat: Seat) -> Int { max(0, self[closed: seat]) + self[open: seat].count }
}

/// One step of the timeline: a change to what is drawn, or a sound or effect.
package enum VisualChange: Equatable {
    case addClosed(Seat, Int)
    case pushOpen(Seat, Card)
    case popOpen(Seat, count: Int)
    case addDeck(Int)
    case setDeck(Int)
    case active(Seat?)
    case status(String, TableVisual.Tone)
    case wins(Seat, Int)
    case present(Seat, Bool)
    case round(Int)
    case cleared(Bool)
    /// Empty every pile (a new round gathers the cards into the deck).
    case resetPiles
    case sound(TableSound)
    case bubble(Seat)
    case splash(Seat, correct: Bool)
    case notice(TableVisual.Notice)
    /// The deal has landed: what a Snap! before the first turn measures from is on screen.
    case dealShown(round: Int)
    /// A round won: the celebration at the winner's seat.
    case celebrate(Seat)
}

/// A Snap!'s reference: the `turn`-th card turned in `round` (0: the finished deal), as
/// `ClientSession.seenTurns` counts them.
package struct Reference: Hashable, Sendable {
    package var round: Int
    package var turn: UInt32
    package init(round: Int, turn: UInt32) { self.round = round; self.turn = turn }
}

/// Where a flying card starts or ends.
package enum PileRef: Equatable {
    /// The top of a closed pile (dealt and turned cards come from or go to it).
    case closedTop(Seat)
    /// The bottom of a closed pile: collected, paid and handed-out cards slide under it.
    case closedBottom(Seat)
    case open(Seat)
    case deck
    /// Off the table, away from the middle, at the end of a round.
    case away(Seat)
}

/// One card (or, when the table is cleared, a chunk of a pile) moving between piles,
/// with its own start time so moves can be staggered.
package struct Flight {
    package enum Kind: Equatable { case deal, turn, move, clear }

    package var kind: Kind
    /// The face, once known (a face-down card never has one).
    package var card: Card?
    package var faceUpAtStart: Bool
    package var faceUpAtEnd: Bool
    package var from: PileRef
    package var to: PileRef
    package var start: Double
    package var duration: Double
    package var begin: [VisualChange]
    package var land: [VisualChange]
    package var fades = false
    /// How high the card arcs, in logical pixels.
    package var lift = 10.0
    /// My own turn, started on the click: it waits at half-flip until the host says which card it is.
    package var awaitingFace = false

    package var began = false
    package var fromPoint = Point(0, 0)
    package var fromAngle = 0.0

    package var end: Double { start + duration }
    package var flips: Bool { faceUpAtStart != faceUpAtEnd }
}

/// A speech bubble or a splash at a seat.
package struct TableEffect {
    package enum Kind: Equatable { case bubble, smiley, wrong, celebration }
    package var kind: Kind
    package var seat: Seat
    package var start: Double

    package static let bubbleDuration = 1.0
    package static let popDuration = 0.1
    package static let splashHold = 1.0
    package static let splashFade = 0.35

    /// A round won: the winner's seat bursts with cards for this long.
    package static let celebrationDuration = 1.6

    package var duration: Double {
        switch kind {
        case .bubble: Self.bubbleDuration
        case .celebration: Self.celebrationDuration
        case .smiley, .wrong: Self.popDuration + Self.splashHold + Self.splashFade
        }
    }
}
