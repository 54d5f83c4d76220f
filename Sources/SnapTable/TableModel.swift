#if canImport(Glibc)
import Glibc
#endif
import SnapEngine
import SnapProtocol
import SnapSession

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

/// Turns the session's events into a timeline of card flights, status lines, sounds and
/// effects, and plays it. It never decides a rule: it only replays, at a watchable pace,
/// what the host already decided (mirrored in `table`, a `TableView` that has applied
/// every event scheduled so far).
package final class TableModel {
    package init() {}

    package private(set) var visual = TableVisual()
    package private(set) var flights: [Flight] = []
    package private(set) var effects: [TableEffect] = []
    private var cues: [(time: Double, change: VisualChange)] = []
    /// When the timeline is free for the next step.
    package private(set) var cursor = 0.0
    private var clearScheduled = false
    /// This batch's round ended on the turn limit.
    private var turnLimitEnded = false
    /// Off: every card lands at once (no flights to watch), as with reduced motion.
    package var animated = true
    /// Cards turned this round, counted as `ClientSession.seenTurns` counts them.
    private var turnsScheduled: UInt32 = 0
    /// Turned cards whose face has not been drawn yet → which reference they are.
    package private(set) var unseenFaces: [Card: Reference] = [:]
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

    // MARK: - Scheduling

    private func cue(_ time: Double, _ changes: VisualChange...) {
        for change in changes { cues.append((time, change)) }
    }

    private func status(_ text: String, _ tone: TableVisual.Tone = .normal) -> VisualChange { .status(text, tone) }

    /// "You win!" on the winner's own screen, "Lucy wins" on the others'; when the turn
    /// limit decided it, the line says so for as long as it stays up.
    package func winLine(_ seat: Seat, byTurnLimit: Bool = false) -> String {
        if byTurnLimit {
            return (seat == me ? "You win" : "\(name(seat)) wins") + ": the most cards at the turn limit"
        }
        return seat == me ? "You win!" : "\(name(seat)) wins"
    }

    private func turnStatus(_ seat: Seat) -> VisualChange {
        seat == me ? status("Your turn — click your pile", .mine) : status("\(name(seat))'s turn")
    }

    /// Queues the animations for one batch of events (everything one host command caused),
    /// starting from `table` as it was before them (the session's, or the replay's).
    package func schedule(_ events: [SeatEvent], from table: TableView, now: Double) {
        guard started else { return }
        var table = table
        if cursor - now > Self.maxBacklog { fastForward(now: now) }
        cursor = max(cursor, now)
        // Behind the host (a fast game): play new steps at double speed; no animations: at once.
        let pace = !animated ? 0 : cursor - now > 1.0 ? 0.5 : 1.0
        var dealBase = cursor
        var dealIndex = 0
        var collectBase: Double?
        var handOutStatusShown = false
        // A status other than whose turn it is was shown since the last activation.
        var turnStatusStale = false

        for event in events {
            let before = table
            table.apply(event)
            switch event {
            case .roundStarted(let round, _):
                turnsScheduled = 0
                unseenFaces = [:]
                if !clearScheduled, before.seats.contains(where: { before[$0].hasCards }) {
                    scheduleClear(before, at: cursor)
                }
                clearScheduled = false
                cue(cursor, .resetPiles, .round(round), .setDeck(52), .cleared(false), .active(nil),
                    status("Dealing…"))
                dealBase = cursor
                dealIndex = 0

            case .dealt(_, let seat):
                let start = dealBase + Self.dealSpacing * Double(dealIndex) * pace
                flights.append(Flight(kind: .deal, card: nil, faceUpAtStart: false, faceUpAtEnd: false, from: .deck,
                                      to: .closedTop(seat), start: start, duration: Self.dealFlight * pace,
                                      begin: [.addDeck(-1)], land: [.addClosed(seat, 1)], lift: 0))
                dealIndex += 1
                cursor = max(cursor, start + Self.dealFlight * pace)

            case .dealFinished:
                compressDeal(now: now)
                cue(cursor, .dealShown(round: table.round))

            case .activated(let seat):
                cue(cursor, .active(seat), turnStatus(seat))
                turnStatusStale = false

            case .turned(let seat, let card):
                turnsScheduled += 1
                unseenFaces[card] = Reference(round: table.round, turn: turnsScheduled)
                if seat == mySeat, let index = flights.firstIndex(where: { $0.awaitingFace }) {
                    // My own click already started the flip: now it knows the face.
                    flights[index].card = card
                    flights[index].awaitingFace = false
                    flights[index].land = [.pushOpen(seat, card)]
                    let half = flights[index].duration / 2
                    if now > flights[index].start + half { flights[index].start = now - half }
                    cursor = max(cursor, flights[index].end)
                } else {
                    let start = cursor
                    flights.append(Flight(kind: .turn, card: card, faceUpAtStart: false, faceUpAtEnd: true,
                                          from: .closedTop(seat), to: .open(seat), start: start,
                                          duration: Self.turnFlight * pace, begin: [.addClosed(seat, -1), .sound(.flick)],
                                          land: [.pushOpen(seat, card)], lift: 14))
                    cursor = start + Self.turnFlight * pace
                }

            case .recycled(let seat, let count):
                let cards = Array(before[seat].open.reversed())
                guard !cards.isEmpty else { break }
                let spacing = min(0.05, 0.5 / Double(max(1, count))) * pace
                var end = cursor
                for (index, card) in cards.enumerated() {
                    let start = cursor + spacing * Double(index)
                    flights.append(Flight(kind: .move, card: card, faceUpAtStart: true, faceUpAtEnd: false,
                                          from: .open(seat), to: .closedTop(seat), start: start,
                                          duration: Self.turnFlight * pace, begin: [.popOpen(seat, count: 1)],
                                          land: [.addClosed(seat, 1)], lift: 8))
                    end = start + Self.turnFlight * pace
                }
                cursor = end

            case .snapCalled(let seat):
                cue(now, .bubble(seat))

            case .snapCorrect(let caller, _):
                turnStatusStale = true
                // What the call won: the open piles this batch moves under the caller's.
                let won = events.reduce(0) { sum, event in
                    if case .collected(let cards, _, let to) = event, to == caller { sum + cards.count } else { sum }
                }
                let taker = caller == me ? "You take" : "\(name(caller)) takes"
                let line = won > 0 ? "Snap! \(taker) \(won) card\(won == 1 ? "" : "s")" : "Snap! \(taker) the piles"
                cue(now, .splash(caller, correct: true), .sound(.correct), status(line, .good))
                cursor = max(cursor, now + Self.snapBeat * pace)
                collectBase = cursor

            case .collected(let cards, let from, let to):
                let base = collectBase ?? cursor
                let spacing = min(0.04, 0.4 / Double(max(1, cards.count))) * pace
                for (index, card) in cards.reversed().enumerated() {
                    let start = base + spacing * Double(index)
                    flights.append(Flight(kind: .move, card: card, faceUpAtStart: true, faceUpAtEnd: false,
                                          from: .open(from), to: .closedBottom(to), start: start,
                                          duration: Self.moveFlight * pace, begin: [.popOpen(from, count: 1)],
                                          land: [.addClosed(to, 1)], lift: 16))
                    cursor = max(cursor, start + Self.moveFlight * pace)
                }

            case .snapWrong(let caller):
                turnStatusStale = true
                cue(now, .splash(caller, correct: false), .sound(.wrong), status("No match!", .bad))
                cursor = max(cursor, now + Self.snapBeat * 1.6 * pace)
                cue(cursor, caller == me ? status("You must pay", .bad) : status("\(name(caller)) must pay"))

            case .paid(_, let from, let to):
                flights.append(Flight(kind: .move, card: nil, faceUpAtStart: false, faceUpAtEnd: false,
                                      from: .closedTop(from), to: .closedBottom(to), start: cursor,
                                      duration: Self.moveFlight * pace, begin: [.addClosed(from, -1)],
                                      land: [.addClosed(to, 1)], lift: 16))
                cursor += Self.paySpacing * pace

            case .snapTooLate(let caller):
                // The call came after another had already won the match: say so for a moment,
                // on every screen, over whatever the status line says.
                let text = caller == me ? "Too late!" : "\(name(caller)) was too late"
                cue(now, .bubble(caller), .notice(TableVisual.Notice(text: text, tone: caller == me ? .bad : .normal,
                                                                      until: now + Self.noticeDuration)))

            case .playerOut:
                break

            case .playerLeft(let seat):
                turnStatusStale = true
                cue(cursor, .present(seat, false), status("\(name(seat)) left the table"))
                if before.active == seat { cue(cursor, .active(nil)) }

            case .handedOut(let card, let from, let pile, let to):
                turnStatusStale = true
                if !handOutStatusShown {
                    handOutStatusShown = true
                    let me = self.me
                    let toMe = events.contains { if case .handedOut(_, _, _, let to) = $0 { return to == me } else { return false } }
                    cue(cursor, toMe ? status("You receive cards", .good) : status("\(name(from))'s cards are handed out"))
                }
                let count = before[from].cardCount
                let spacing = min(0.15, 3.0 / Double(max(1, count))) * pace
                flights.append(Flight(kind: .move, card: card, faceUpAtStart: pile == .open, faceUpAtEnd: false,
                                      from: pile == .closed ? .closedTop(from) : .open(from), to: .closedBottom(to),
                                      start: cursor, duration: Self.moveFlight * pace,
                                      begin: [pile == .closed ? .addClosed(from, -1) : .popOpen(from, count: 1)],
                                      land: [.addClosed(to, 1)], lift: 16))
                cursor += spacing

            case .turnLimitReached:
                // The round ends on the turn limit: the winner (named by the `roundWon` that
                // follows in this batch) holds the most cards.
                let holder = events.lazy.compactMap { event -> Seat? in
                    if case .roundWon(let seat, _) = event { return seat } else { return nil }
                }.first
                let who = holder.map { $0 == me ? "you hold" : "\(name($0)) holds" }
                cue(cursor, status("Turn limit reached" + (who.map { ": \($0) the most cards" } ?? ""), .good))
                turnLimitEnded = true

            case .absent(let seat):
                turnStatusStale = true
                cue(cursor, status(seat == me ? "You are reconnecting…" : "\(name(seat)) is reconnecting…"))
                if before.active == seat, !before.hasTurned { cue(cursor, .active(nil)) }

            case .waiting:
                cue(cursor, .active(nil), status("Waiting for a player to reconnect…"))

            case .returned(let seat):
                turnStatusStale = true
                cue(cursor, status(seat == me ? "You are back" : "\(name(seat)) is back", .good))

            case .roundWon(let seat, let wins):
                // Every remaining flight ends this round's last move: settle, then name the winner.
                cursor = max(cursor, flights.map(\.end).max() ?? cursor)
                let winner = status(winLine(seat, byTurnLimit: turnLimitEnded), .good)
                if turnLimitEnded {
                    // Let "Turn limit reached: …" be read before the winner's line.
                    turnLimitEnded = false
                    cursor += 1.6
                } else {
                    cue(now, winner)
                }
                cue(cursor, .wins(seat, wins), .active(nil), winner, .celebrate(seat), .sound(.win))
                scheduleClear(table, at: cursor + Self.winPause)
                clearScheduled = true
            }
        }
        // Cards moved while someone was still to turn (a snap, a leaver): once they land,
        // say again whose turn it is.
        if turnStatusStale, table.phase == .playing, let active = table.active, !table.hasTurned {
            cue(cursor, .active(active), turnStatus(active))
        }
    }

    /// A line for the status, in turn with what is already queued.
    package func announce(_ text: String, now: Double) {
        cursor = max(cursor, now)
        cue(cursor, status(text))
    }

    /// The round is over: every seat's piles slide off the table's edge together, fading.
    private func scheduleClear(_ table: TableView, at time: Double) {
        let spacing = 0.012, duration = 0.55
        var end = time
        for seat in table.seats {
            var index = 0
            var closed = table[seat].closedCount
            // A thick pile leaves in a few chunks rather than card by card.
            let chunks = min(closed, 6)
            for chunk in 0..<chunks {
                let size = closed / (chunks - chunk)
                closed -= size
                flights.append(Flight(kind: .clear, card: nil, faceUpAtStart: false, faceUpAtEnd: false,
                                      from: .closedTop(seat), to: .away(seat), start: time + spacing * Double(index),
                                      duration: duration, begin: [.addClosed(seat, -size)], land: [], fades: true, lift: 0))
                index += 1
            }
            var open = table[seat].open
            while !open.isEmpty {
                let size = open.count > 6 ? open.count - 5 : 1
                let card = open[open.count - 1]
                open.removeLast(size)
                flights.append(Flight(kind: .clear, card: card, faceUpAtStart: true, faceUpAtEnd: true,
                                      from: .open(seat), to: .away(seat), start: time + spacing * Double(index),
                                      duration: duration, begin: [.popOpen(seat, count: size)], land: [], fades: true,
                                      lift: 0))
                index += 1
            }
            end = max(end, time + spacing * Double(max(0, index - 1)) + duration)
        }
        cue(end, .cleared(true))
        cursor = max(cursor, end)
    }

    /// The host finished dealing before the deal animation did (a faster game): play the
    /// rest of the deal quickly so nobody waits on it.
    private func compressDeal(now: Double) {
        let pending = flights.indices.filter { flights[$0].kind == .deal }
        guard let last = pending.map({ flights[$0].end }).max(), last - now > 0.35 else { return }
        let k = 0.3 / (last - now)
        for index in pending where !flights[index].began {
            flights[index].start = now + max(0, flights[index].start - now) * k
            flights[index].duration = max(0.08, flights[index].duration * k)
        }
        cursor = max(now, flights.map(\.end).max() ?? now)
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
    private func fastForward(now: Double) {
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
