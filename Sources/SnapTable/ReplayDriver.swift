import SnapEngine
import SnapProtocol
import SnapSession

/// A journal that cannot be played back, in plain words.
package struct ReplayLoadError: Error, CustomStringConvertible, Equatable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// A journaled match played back on a `TableModel`: each logged command's events reach the
/// model at the host's logged time, on a clock of its own that can pause, run at another
/// speed and jump to a round's start. The model animates them exactly as a window at the
/// table would have; nothing is hidden, since the match is over.
package final class ReplayDriver {
    package let model = TableModel()
    package let start: MatchStart
    /// The logged commands with the events they caused (every card named), in order.
    private let steps: [(time: Double, events: [SeatEvent], command: Command)]
    /// Index into `steps` of the step whose events start round 1, 2, …
    package let roundStarts: [Int]
    /// The playback clock: the host's clock in seconds, with long waits shortened.
    package private(set) var position: Double
    /// Steps fed to the model so far.
    package private(set) var fed = 0
    /// The whole game after the steps fed so far (the journal names every card).
    package private(set) var game: Game
    package var isPaused = false
    /// Playback speeds offered, slowest first.
    package static let speeds: [Double] = [0.5, 1, 2, 4]
    package private(set) var speed = 1.0
    /// A wait longer than this (a host that let the round-over screen stand) plays as this long.
    package static let longestWait = 3.0

    /// Reads a journal's records. A journal with no start, or one the engine does not
    /// replay to the same events, is refused with the reason.
    package init(records: [MatchRecord]) throws(ReplayLoadError) {
        do { _ = try MatchReplay.fold(records) } catch {
            throw ReplayLoadError("the journal does not replay: \(error)")
        }
        var start: MatchStart?
        var steps: [(time: Double, events: [SeatEvent], command: Command)] = []
        var roundStarts: [Int] = []
        var clock = 0.0
        var last: UInt64?
        for record in records {
            // Long waits shortened, so a replay never stands still for minutes.
            let gap = last.map { Double(record.timeMicros &- min($0, record.timeMicros)) / 1e6 } ?? 0
            clock += min(gap, Self.longestWait)
            last = record.timeMicros
            switch record.entry {
            case .started(let logged): start = logged
            case .applied(let command, let events):
                if events.contains(where: { if case .roundStarted = $0 { true } else { false } }) {
                    roundStarts.append(steps.count)
                }
                steps.append((clock, events.map(\.named), command))
            case .ended, .committed, .revealed: break
            }
        }
        guard let start else { throw ReplayLoadError("the journal has no match in it (no start record)") }
        guard !start.players.isEmpty else { throw ReplayLoadError("the journal's match has no players") }
        self.start = start
        self.steps = steps
        self.roundStarts = roundStarts
        game = Game(seats: start.players.map(\.seat), rules: start.rules)
        position = 0
        model.watching = true
        model.start(seats: game.seats, mySeat: start.players[0].seat, names: names)
    }

    private var names: [Seat: String] {
        Dictionary(start.players.map { ($0.seat, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// The round on the table (0 before the first deal).
    package var round: Int { roundStarts.filter { $0 < fed }.count }
    package var rounds: Int { roundStarts.count }
    /// Every logged step has been fed and every card has landed.
    package var isFinished: Bool { fed == steps.count && model.isIdle }
    /// How long the whole replay lasts at 1× (long waits shortened).
    package var duration: Double { steps.last?.time ?? 0 }

    /// The next speed up (`faster`) or down, within `speeds`.
    package func changeSpeed(faster: Bool) {
        let index = Self.speeds.firstIndex(of: speed) ?? 1
        speed = Self.speeds[max(0, min(Self.speeds.count - 1, index + (faster ? 1 : -1)))]
    }

    package func setSpeed(_ speed: Double) {
        guard Self.speeds.contains(speed) else { return }
        self.speed = speed
    }

    /// `seconds` of real time passed: the clock moves by them times the speed (not while
    /// paused), every step now due goes to the model, and the model plays up to the clock.
    package func advance(by seconds: Double, play: (TableSound) -> Void = { _ in }) {
        if !isPaused { position += max(0, seconds) * speed }
        while fed < steps.count, steps[fed].time <= position {
            let step = steps[fed]
            // The journal's commands re-applied: `game` knows every face-down card.
            let before = game.table
            _ = try? game.apply(step.command)
            model.schedule(step.events, from: before, now: position)
            fed += 1
        }
        model.advance(to: position, play: play)
    }

    /// Plays silently from the start to `seconds` into the match, as the frames would have,
    /// paused or not (`snapcards replay --start-at`).
    package func seek(to seconds: Double) {
        if fed > 0 || position > 0 { restart() }
        let paused = isPaused
        isPaused = false
        let speed = self.speed
        self.speed = 1
        while position < seconds, !isFinished { advance(by: min(0.1, seconds - position)) }
        self.speed = speed
        isPaused = paused
    }

    /// Back to before the first record.
    private func restart() {
        game = Game(seats: start.players.map(\.seat), rules: start.rules)
        fed = 0
        position = 0
        model.stop()
        model.start(seats: game.seats, mySeat: start.players[0].seat, names: names)
    }

    /// Jumps to just before round `round` is dealt (1-based; clamped to the match's rounds):
    /// the table as the round before left it, then the deal plays.
    package func skip(toRound round: Int) {
        guard !roundStarts.isEmpty else { return }
        let target = roundStarts[max(0, min(roundStarts.count - 1, round - 1))]
        var game = Game(seats: start.players.map(\.seat), rules: start.rules)
        for step in steps[..<target] { _ = try? game.apply(step.command) }
        self.game = game
        fed = target
        // A moment before the deal, so it is seen from its first card.
        position = max(target > 0 ? steps[target - 1].time : 0, steps[target].time - 0.3)
        model.stop()
        model.adopt(game.table, mySeat: start.players[0].seat, names: names, now: position)
    }

    package func nextRound() { if round < rounds { skip(toRound: round + 1) } }
    package func previousRound() { skip(toRound: max(1, round - 1)) }

    /// The top card of a closed pile, face up for the replay, once the drawn pile has as
    /// many cards as the game's (not while cards fly to or from it).
    package func revealedTop(_ seat: Seat) -> Card? {
        let closed = game.hand(seat).closed
        guard model.visual[closed: seat] == closed.count else { return nil }
        return closed.last
    }
}
