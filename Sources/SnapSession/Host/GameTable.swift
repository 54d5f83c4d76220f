import SnapBots
import SnapEngine
import SnapProtocol

/// The table: the game itself (SnapEngine), the pacing between its steps, the turn timer,
/// and the computers that play seats — the host's own computer players, and the stand-in
/// for a player who let the turn timer run out too often.
///
/// It applies commands and says what they caused, and keeps the timers those events start
/// or stop. It sends and records nothing: the session logs every applied command (the
/// match log is the one truth) and tells the seats and the judge.
struct GameTable: Sendable {
    /// One seat as the host plays it.
    struct SeatPlay: Sendable {
        let seat: Seat
        /// The computer playing it: one of the host's own, or a stand-in for its owner.
        var computer: Bot?
        /// Turns the host took for its owner in a row (the turn timer).
        var missedTurns = 0
    }

    /// What a command did.
    enum Outcome: Sendable {
        /// The engine refused it and nothing changed: a race with the last move, honest players do this.
        case refused(GameError)
        /// `violation`: the first broken invariant, when this command broke it.
        case applied([Event], violation: String?)
    }

    /// A round was won.
    struct RoundEnd: Equatable, Sendable {
        var winner: Seat
        var round: Int
        /// All the rounds asked for are played.
        var matchOver: Bool
    }

    private(set) var game: Game?
    /// The seats in the order their players joined (the same order as the seating's players).
    private(set) var seats: [SeatPlay] = []
    /// The pacing timers and the turn timer.
    private(set) var timers: [HostTimer: Duration] = [:]
    private(set) var roundsWon = 0
    /// Commands applied, and the first broken invariant if any (checked after every one).
    private(set) var commandsApplied = 0
    private(set) var invariantViolation: String?
    /// The current round's seed and salt, from its commitment until its reveal.
    private(set) var dealSecret: DealReveal?
    /// Secret deals need no replay: they come from the system's generator.
    private var secrets = SystemRandomNumberGenerator()
    /// The rules, the pacing and the computers' level.
    private let configuration: HostConfiguration

    init(_ configuration: HostConfiguration) {
        self.configuration = configuration
    }

    /// The match starts: a computer sits at every seat nobody plays from a connection.
    mutating func start(seats: [Seat], computers: [Bool]) {
        for (index, seat) in seats.enumerated() {
            self.seats.append(SeatPlay(seat: seat, computer: computers[index] ? computer(at: index, seat: seat) : nil))
        }
        game = Game(seats: seats, rules: configuration.rules)
    }

    /// A host restarted from its match log: the game folded from it; a computer at every
    /// seat that had no owner (no token).
    mutating func resume(_ replay: MatchReplay, owned: [Bool]) {
        guard let start = replay.start else { return }
        game = replay.game
        commandsApplied = replay.commands
        roundsWon = replay.winners.count
        dealSecret = replay.unrevealed
        for (index, seated) in start.players.enumerated() {
            seats.append(SeatPlay(seat: seated.seat, computer: owned[index] ? nil : computer(at: index, seat: seated.seat)))
        }
    }

    /// The host's own computer player for the `index`th seat.
    private func computer(at index: Int, seat: Seat, salt: UInt64 = 0) -> Bot {
        Bot(seat: seat, level: configuration.botLevel, seed: configuration.seed &+ UInt64(index) &+ salt,
            timeScale: configuration.speed)
    }

    // MARK: - Commands

    /// Applies a command (nil: there is no game). The game is checked after every one.
    mutating func apply(_ command: Command) -> Outcome? {
        guard game != nil else { return nil }
        let events: [Event]
        do {
            // In place: a copy of the game held across `apply` would make its first move copy
            // every pile. A refused command leaves the game as it was.
            events = try game!.apply(command)
        } catch {
            return .refused(error)
        }
        commandsApplied += 1
        var violation: String?
        if invariantViolation == nil, let broken = game!.invariantViolation() {
            invariantViolation = "after \(command): \(broken)"
            violation = invariantViolation
        }
        return .applied(events, violation: violation)
    }

    /// Starts and stops what an event paces: the deal's animation, the turn timer, the
    /// pause before the next player, the next round. Returns the round won, if it was.
    mutating func observe(_ event: Event, now: Duration) -> RoundEnd? {
        switch event {
        case .roundStarted:
            timers[.finishDeal] = now + configuration.pacing.deal * configuration.speed
        case .activated(let seat):
            armTurnTimer(for: seat, now: now)
        case .turned:
            timers[.turnTimeout] = nil
            timers[.activateNext] = now + configuration.pacing.nextPlayer * configuration.speed
        case .roundWon(let seat, _):
            roundsWon += 1
            timers[.activateNext] = nil
            timers[.turnTimeout] = nil
            let matchOver = configuration.rounds.map { roundsWon >= $0 } ?? false
            if !matchOver, let pause = configuration.autoNextRound { timers[.nextRound] = now + pause * configuration.speed }
            return RoundEnd(winner: seat, round: game?.round ?? 0, matchOver: matchOver)
        default:
            break
        }
        return nil
    }

    /// Every computer sees what everyone saw.
    mutating func computersObserve(_ seen: [SeatEvent], now: Duration) {
        guard let table = game?.table else { return }
        for index in seats.indices where seats[index].computer != nil {
            seats[index].computer!.observe(seen, table: table, now: now)
        }
    }

    /// What the computer at the `index`th seat does now, if anything.
    mutating func computerIntent(at index: Int, now: Duration) -> BotIntent? {
        seats[index].computer?.due(at: now)
    }

    // MARK: - Deals

    /// The next round's seed, and the secret to commit to before dealing it (nil when the
    /// engine would refuse this deal: a refused deal commits to nothing). Nil: no game.
    mutating func nextDeal() -> (seed: UInt64, secret: DealReveal?)? {
        timers[.nextRound] = nil
        guard let game else { return nil }
        let round = UInt32(clamping: game.round + 1)
        let secret = configuration.secretDeals ? DealReveal.secret(round: round, using: &secrets)
            : DealReveal.derived(match: configuration.seed, round: round)
        var trial = game
        guard (try? trial.apply(.deal(seed: secret.seed))) != nil else { return (secret.seed, nil) }
        dealSecret = secret
        return (secret.seed, secret)
    }

    /// The round is over (or the match ends in it): its secret, to reveal once.
    mutating func takeDealSecret() -> DealReveal? {
        defer { dealSecret = nil }
        return dealSecret
    }

    // MARK: - The turn timer and away players

    /// A seat its owner plays gets the turn timer; one a computer plays needs none.
    mutating func armTurnTimer(for seat: Seat, now: Duration) {
        timers[.turnTimeout] = nil
        guard let timeout = configuration.turnTimeout,
              let play = seats.first(where: { $0.seat == seat }), play.computer == nil else { return }
        timers[.turnTimeout] = now + timeout
    }

    /// The turn timer ran out: the active seat whose card the host turns for its owner, and
    /// how many turns in a row that makes (nil: nothing to turn).
    mutating func missTurn() -> (seat: Seat, missed: Int)? {
        guard let table = game?.table, game?.phase == .playing, let seat = table.active, !table.hasTurned,
              let index = seats.firstIndex(where: { $0.seat == seat }), seats[index].computer == nil else { return nil }
        seats[index].missedTurns += 1
        return (seat, seats[index].missedTurns)
    }

    /// After `awayAfterMissedTurns` missed turns in a row a computer plays the seat until
    /// its owner acts again. Returns whether one now does.
    mutating func standIn(at seat: Seat, now: Duration) -> Bool {
        guard let index = seats.firstIndex(where: { $0.seat == seat }),
              seats[index].missedTurns >= configuration.awayAfterMissedTurns, let table = game?.table else { return false }
        var bot = computer(at: index, seat: seat, salt: 0xA5A5)
        bot.observe([], table: table, now: now)
        seats[index].computer = bot
        return true
    }

    /// The owner of a seat a computer plays for them acted: the seat is theirs again (true),
    /// with the turn timer if it is their turn.
    mutating func ownerTakesBack(_ seat: Seat, now: Duration) -> Bool {
        guard let index = seats.firstIndex(where: { $0.seat == seat }), seats[index].computer != nil else { return false }
        seats[index].computer = nil
        seats[index].missedTurns = 0
        if game?.table.active == seat, game?.table.hasTurned == false { armTurnTimer(for: seat, now: now) }
        return true
    }

    /// Whether this seat is active and has not turned yet.
    func awaitsTurn(from seat: Seat) -> Bool {
        game?.table.active == seat && game?.table.hasTurned == false
    }

    /// Its owner turned on their turn: the count of missed turns starts again.
    mutating func ownerTurned(at seat: Seat) {
        if let index = seats.firstIndex(where: { $0.seat == seat }) { seats[index].missedTurns = 0 }
    }

    /// A seat's owner dropped: no computer plays it while it waits for them.
    mutating func removeComputer(at seat: Seat) {
        if let index = seats.firstIndex(where: { $0.seat == seat }) { seats[index].computer = nil }
    }

    // MARK: - Timers

    /// A resumed host: the pacing timers where the log left the game. Returns its phase.
    mutating func resumePacing(now: Duration) -> Game.Phase? {
        guard let game else { return nil }
        switch game.phase {
        case .lobby: break
        case .dealing: timers[.finishDeal] = now + configuration.pacing.deal * configuration.speed
        case .playing:
            if game.hasTurned { timers[.activateNext] = now + configuration.pacing.nextPlayer * configuration.speed }
        case .roundOver:
            if let pause = configuration.autoNextRound { timers[.nextRound] = now + pause * configuration.speed }
        }
        return game.phase
    }

    mutating func clear(_ timer: HostTimer) { timers[timer] = nil }

    mutating func stop() { timers = [:] }

    /// The soonest of the timers and the computers' wake times.
    var nextDeadline: Duration? {
        var next: Duration?
        for time in timers.values where next == nil || time < next! { next = time }
        for play in seats {
            if let wake = play.computer?.nextWake, next == nil || wake < next! { next = wake }
        }
        return next
    }

    func due(at now: Duration, into due: inout [HostTimer]) {
        for (timer, time) in timers where time <= now { due.append(timer) }
    }
}
