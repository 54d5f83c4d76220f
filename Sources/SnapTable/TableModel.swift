#if canImport(Glibc)
import Glibc
#endif
import SnapEngine
import SnapProtocol
import SnapSession

/// Turns the session's events into a timeline of card flights, status lines, sounds and
/// effects, and plays it. It never decides a rule: it only replays, at a watchable pace,
/// what the host already decided (mirrored in `table`, a `TableView` that has applied
/// every event scheduled so far).
package final class TableModel {
    package init() {}

    package private(set) var visual = TableVisual()
    package internal(set) var flights: [Flight] = []
    package private(set) var effects: [TableEffect] = []
    var cues: [(time: Double, change: VisualChange)] = []
    /// When the timeline is free for the next step.
    package internal(set) var cursor = 0.0
    var clearScheduled = false
    /// This batch's round ended on the turn limit.
    var turnLimitEnded = false
    /// Off: every card lands at once (no flights to watch), as with reduced motion.
    package var animated = true
    /// Cards turned this round, counted as `ClientSession.seenTurns` counts them.
    var turnsScheduled: UInt32 = 0
    /// Turned cards whose face has not been drawn yet → which reference they are.
    package internal(set) var unseenFaces: [Card: Reference] = [:]
    /// References drawn in the frame being drawn: reported once it is presented.
    package var referencesDrawn: [Reference] = []

    /// The model holds this game's table (set on `gameStarted`, a snapshot, or adopted).
    package private(set) var started = false
    /// My click turned my card at this time; no second one until the host answers.
    package internal(set) var turnRequestedAt: Double?

    package var mySeat: Seat = .bottom
    /// A watcher sees the table from `mySeat` but is nobody at it: no "you", no "your turn".
    package var watching = false
    /// The seat that is me, if I play.
    package var me: Seat? { watching ? nil : mySeat }
    package var names: [Seat: String] = [:]

    /// Animation timings (seconds), as RULES.md gives them.
    package static let dealFlight = 0.2
    package static let dealSpacing = 0.1
    package static let turnFlight = 0.3
    package static let moveFlight = 0.4
    package static let paySpacing = 0.3
    /// After a snap's splash pops, before the cards move.
    package static let snapBeat = 0.45
    /// How long the won pile stays before the table is cleared.
    package static let winPause = 1.3
    /// How long a notice ("Too late!") stays over the status line.
    package static let noticeDuration = 1.5
    /// When the timeline falls this far behind the host, it jumps to the present.
    package static let maxBacklog = 2.5

    package var isIdle: Bool { flights.isEmpty && cues.isEmpty }
    package var isAnimating: Bool { !isIdle || !effects.isEmpty }
    package var isDealing: Bool { flights.contains { $0.kind == .deal } }
    package var hasLocalFlip: Bool { flights.contains { $0.awaitingFace } }

    package func name(_ seat: Seat) -> String { names[seat] ?? { let raw = "\(seat)"; return raw.prefix(1).uppercased() + raw.dropFirst() }() }

    // MARK: - Starting

    /// The game started: an empty table for these seats.
    package func start(seats: [Seat], mySeat: Seat, names: [Seat: String]) {
        self.mySeat = mySeat
        self.names = names
        visual = TableVisual()
        for seat in seats { visual.present[Int(seat.rawValue)] = true }
        flights = []
        cues = []
        effects = []
        clearScheduled = false
        turnLimitEnded = false
        // A replay may start a table again at an earlier time.
        cursor = 0
        started = true
    }

    /// Takes over a table already under way (the scene before this one drained the
    /// session): a deal in progress is animated from the start; anything else is shown as it is.
    package func adopt(_ table: TableView, mySeat: Seat, names: [Seat: String], now: Double) {
        start(seats: table.seats, mySeat: mySeat, names: names)
        if table.phase == .dealing {
            let dealt = table.seats.reduce(0) { $0 + table[$1].closedCount }
            // Deal round-robin clockwise from a seat holding the most cards (the starting player).
            let most = table.seats.map { table[$0].closedCount }.max() ?? 0
            let first = table.seats.first { table[$0].closedCount == most } ?? mySeat
            var remaining = Dictionary(uniqueKeysWithValues: table.seats.map { ($0, table[$0].closedCount) })
            var events: [SeatEvent] = [.roundStarted(round: table.round, startingSeat: first)]
            let order = table.seats.clockwise(from: first)
            var index = 0
            while events.count - 1 < dealt {
                let seat = order[index % order.count]
                if remaining[seat, default: 0] > 0 {
                    remaining[seat]! -= 1
                    events.append(.dealt(nil, to: seat))
                }
                index += 1
            }
            schedule(events, from: TableView(seats: table.seats), now: now)
            for seat in table.seats { visual.wins[Int(seat.rawValue)] = table[seat].wins }
        } else {
            visual = Self.snapshot(table, cleared: false, status: "", tone: .normal)
            var line: VisualChange?
            if case .roundOver(let winner) = table.phase {
                line = status(winLine(winner), .good)
            } else if table.phase == .playing, let active = table.active {
                line = turnStatus(active)
            }
            if case .status(let text, let tone)? = line {
                visual.status = text
                visual.tone = tone
            }
        }
    }

    /// What a table looks like with nothing moving.
    package static func snapshot(_ table: TableView, cleared: Bool, status: String, tone: TableVisual.Tone) -> TableVisual {
        var v = TableVisual()
        let empty: Bool
        if cleared, case .roundOver = table.phase { empty = true } else { empty = false }
        for seat in Seat.allCases {
            let i = Int(seat.rawValue)
            v.present[i] = table.seats.contains(seat) && table[seat].isPresent
            v.wins[i] = table[seat].wins
            v.closed[i] = empty ? 0 : table[seat].closedCount
            v.open[i] = empty ? [] : table[seat].open
        }
        v.deck = table.phase == .dealing ? table.deckCount : 0
        v.active = table.active
        v.round = table.round
        v.cleared = empty
        v.status = status
        v.tone = tone
        return v
    }

    /// With nothing moving, the drawn table must equal the session's: fix any drift
    /// (a refused turn, a jump to the present). Returns true if something changed.
    @discardableResult
    package func reconcile(with table: TableView) -> Bool {
        guard isIdle else { return false }
        var truth = Self.snapshot(table, cleared: visual.cleared, status: visual.status, tone: visual.tone)
        truth.notice = visual.notice
        guard truth != visual else { return false }
        visual = truth
        return true
    }

    // MARK: - My own turn

    /// The click on my pile: the first half of the flip starts now, before the host answers.
    package func beginLocalFlip(now: Double) {
        flights.append(Flight(kind: .turn, card: nil, faceUpAtStart: false, faceUpAtEnd: true, from: .closedTop(mySeat),
                              to: .open(mySeat), start: now, duration: animated ? Self.turnFlight : 0,
                              begin: [.addClosed(mySeat, -1), .sound(.flick)], land: [], lift: 14, awaitingFace: true))
    }

    /// The host never turned my card (refused, or the game moved on): put it back.
    package func cancelLocalFlip() {
        guard let index = flights.firstIndex(where: { $0.awaitingFace }) else { return }
        if flights[index].began { apply(.addClosed(mySeat, 1), now: 0, play: { _ in }) }
        flights.remove(at: index)
    }

    // MARK: - Playing

    /// Plays everything due by `now`, in time order (`quiet`: without bubbles and splashes).
    package func advance(to now: Double, play: (TableSound) -> Void, quiet: Bool = false) {
        while true {
            var best: (time: Double, cue: Int?, flight: Int?)?
            for (index, cue) in cues.enumerated() where cue.time <= now {
                if best == nil || cue.time < best!.time { best = (cue.time, index, nil) }
            }
            for (index, flight) in flights.enumerated() {
                let time: Double
                if !flight.began { time = flight.start } else if flight.awaitingFace { continue } else { time = flight.end }
                if time <= now, best == nil || time < best!.time { best = (time, nil, index) }
            }
            guard let step = best else { break }
            if let index = step.cue {
                let change = cues.remove(at: index).change
                switch change {
                case .bubble where quiet, .splash where quiet: break
                default: apply(change, now: now, play: play)
                }
            } else if let index = step.flight {
                if !flights[index].began {
                    beginFlight(index, now: now, play: play)
                } else {
                    let flight = flights.remove(at: index)
                    for change in flight.land { apply(change, now: now, play: play) }
                }
            }
        }
        if !quiet { effects.removeAll { now - $0.start > $0.duration } }
    }

    private func beginFlight(_ index: Int, now: Double, play: (TableSound) -> Void) {
        let flight = flights[index]
        let (point, angle) = anchor(flight.from, card: flight.card, landing: false)
        flights[index].fromPoint = point
        flights[index].fromAngle = angle
        flights[index].began = true
        for change in flight.begin { apply(change, now: now, play: play) }
    }

    /// Jumps to the present: everything queued happens at once, silently (my pending flip excepted).
    func fastForward(now: Double) {
        advance(to: .greatestFiniteMagnitude, play: { _ in }, quiet: true)
        cursor = now
    }

    private func apply(_ change: VisualChange, now: Double, play: (TableSound) -> Void) {
        switch change {
        case .addClosed(let seat, let n): visual[closed: seat] += n
        case .pushOpen(let seat, let card): visual[open: seat].append(card)
        case .popOpen(let seat, let count): visual[open: seat].removeLast(min(count, visual[open: seat].count))
        case .addDeck(let n): visual.deck = max(0, visual.deck + n)
        case .setDeck(let n): visual.deck = n
        case .active(let seat): visual.active = seat
        case .status(let text, let tone): visual.status = text; visual.tone = tone
        case .wins(let seat, let wins): visual.wins[Int(seat.rawValue)] = wins
        case .present(let seat, let present): visual.present[Int(seat.rawValue)] = present
        case .round(let round): visual.round = round
        case .cleared(let cleared): visual.cleared = cleared
        case .resetPiles:
            visual.closed = [0, 0, 0, 0]
            visual.open = [[], [], [], []]
        case .sound(let sound): play(sound)
        case .bubble(let seat):
            effects.removeAll { $0.kind == .bubble && $0.seat == seat }
            effects.append(TableEffect(kind: .bubble, seat: seat, start: now))
        case .notice(let notice): visual.notice = notice
        case .dealShown(let round): referencesDrawn.append(Reference(round: round, turn: 0))
        case .celebrate(let seat):
            effects.removeAll { $0.kind == .celebration }
            effects.append(TableEffect(kind: .celebration, seat: seat, start: now))
        case .splash(let seat, let correct):
            effects.removeAll { $0.kind != .bubble && $0.seat == seat }
            effects.append(TableEffect(kind: correct ? .smiley : .wrong, seat: seat, start: now))
        }
    }

    /// The table is drawing `card` face up: the first time, note which reference it is.
    package func faceDrawn(_ card: Card) {
        guard let reference = unseenFaces.removeValue(forKey: card) else { return }
        referencesDrawn.append(reference)
    }

    /// Game over or a new scene: stop everything.
    package func stop() {
        flights = []
        cues = []
        effects = []
    }

    // MARK: - Geometry

    package func screen(_ seat: Seat) -> Seat { seat.onScreen(of: mySeat) }

    /// A card's cosmetic jitter on an open pile: a few pixels off and slightly turned. Its own
    /// generator, seeded by the card and the round, never the game's.
    package static func jitter(_ card: Card, round: Int) -> (offset: Point, degrees: Double) {
        var random = SeededRandom(seed: UInt64(card.id) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: round))
        let dx = (random.unit() - 0.5) * 8
        let dy = (random.unit() - 0.5) * 8
        let degrees = (random.unit() - 0.5) * 16
        return (Point(dx, dy), degrees)
    }

    /// Where a card sits at a pile, and its tilt.
    package func anchor(_ ref: PileRef, card: Card?, landing: Bool) -> (Point, Double) {
        switch ref {
        case .closedTop(let seat):
            let count = max(0, visual[closed: seat]) + (landing ? 1 : 0)
            return (TableLayout.closedTop(screen(seat), count: max(1, count)), 0)
        case .closedBottom(let seat):
            return (TableLayout.closedCenter(screen(seat)), 0)
        case .open(let seat):
            guard let card = card else { return (TableLayout.openCenter(screen(seat)), 0) }
            let jitter = Self.jitter(card, round: visual.round)
            return (TableLayout.openCenter(screen(seat)) + jitter.offset, jitter.degrees)
        case .deck:
            return (TableLayout.closedTopLike(TableLayout.deckCenter, count: max(1, visual.deck)), 0)
        case .away(let seat):
            return (TableLayout.awayPoint(screen(seat)), 0)
        }
    }

    /// Where a flying card is at `now`.
    package func pose(_ flight: Flight, now: Double) -> (center: Point, degrees: Double, scaleX: Double, scale: Double,
                                                   faceUp: Bool, alpha: Double) {
        var p = flight.duration > 0 ? (now - flight.start) / flight.duration : 1
        p = max(0, min(1, p))
        if flight.awaitingFace { p = min(p, 0.5) }
        let eased = p * p * (3 - 2 * p)
        let (to, toAngle) = anchor(flight.to, card: flight.card, landing: true)
        let from = flight.began ? flight.fromPoint : anchor(flight.from, card: flight.card, landing: false).0
        let arc = sin(Double.pi * p)
        let center = from + (to - from) * eased + Point(0, -flight.lift * arc)
        let degrees = flight.fromAngle + (toAngle - flight.fromAngle) * eased
        let scaleX = flight.flips ? abs(cos(Double.pi * p)) : 1
        let faceUp = flight.flips ? (p < 0.5 ? flight.faceUpAtStart : flight.faceUpAtEnd) : flight.faceUpAtStart
        let scale = 1 + (flight.lift > 0 ? 0.08 * arc : 0)
        let alpha = flight.fades ? pow(1 - eased, 1.5) : 1
        return (center, degrees, scaleX, scale, faceUp && flight.card != nil, alpha)
    }
}
