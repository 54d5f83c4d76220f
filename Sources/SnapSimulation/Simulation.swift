import SnapBots
import SnapEngine

public struct SimulationOptions: Hashable, Sendable {
    public var players: Int
    public var rounds: Int
    public var seed: UInt64
    public var level: BotLevel
    public var rules: Rules
    public var pacing: Pacing
    /// A safety stop for the simulation itself (not a game rule): a round still going
    /// after this many turns is abandoned and counted as unfinished.
    public var abandonAfterTurns: Int

    public init(players: Int = 4, rounds: Int = 10, seed: UInt64 = 1, level: BotLevel = .normal,
                rules: Rules = .original, pacing: Pacing = .original, abandonAfterTurns: Int = 100_000) {
        self.players = players
        self.rounds = rounds
        self.seed = seed
        self.level = level
        self.rules = rules
        self.pacing = pacing
        self.abandonAfterTurns = abandonAfterTurns
    }
}

public struct SimulationReport: Hashable, Sendable {
    public var options: SimulationOptions
    public var seats: [Seat]
    public var names: [Seat: String]
    public var roundsPlayed = 0
    public var unfinishedRounds = 0
    public var roundsEndedByTurnLimit = 0
    public var wins: [Seat: Int] = [:]
    public var turnsPerRound: [Int] = []
    public var virtualTimePerRound: [Duration] = []
    public var snapsCorrect = 0
    public var snapsWrong = 0
    public var snapsTooLate = 0
    public var refusedIntents = 0
    public var commandsApplied = 0
    public var eventsChecked = 0
    /// The first broken invariant, if any: the simulation stops there.
    public var violation: String?
}

/// Computer players against each other in virtual time: the host's timers and the
/// bots' delays are values on one timeline, so a round of many minutes runs in
/// microseconds and the same seed always plays the same game.
public struct Simulation {
    /// By seat: Mia at the bottom, then the computer players clockwise.
    public static let names = ["Mia"] + Bot.names

    public let options: SimulationOptions
    /// Every command applied, per round, for replay (benchmarks) when asked for.
    public private(set) var recordedRounds: [[Command]] = []
    private let recording: Bool

    public init(_ options: SimulationOptions, recording: Bool = false) {
        precondition((2...4).contains(options.players), "2 to 4 players")
        self.options = options
        self.recording = recording
    }

    public mutating func run() -> SimulationReport {
        let seats = Seat.seating(playerCount: options.players)
        var report = SimulationReport(
            options: options, seats: seats,
            names: Dictionary(uniqueKeysWithValues: seats.map { ($0, Self.names[Int($0.rawValue)]) }))
        var game = Game(seats: seats, rules: options.rules)
        var table = TableView(seats: seats)
        var bots = seats.map { Bot(seat: $0, level: options.level, seed: options.seed &+ 1) }
        var now = Duration.zero

        for _ in 0..<options.rounds {
            var hostTimer: (at: Duration, command: Command)? = (now, .deal(seed: DealSeeds.seed(match: options.seed, round: game.round + 1)))
            var recorded: [Command] = []
            let roundStart = now
            var finished = false
            while !finished {
                // The earliest due action; the host first on a tie, then the seats in order.
                var next: (at: Duration, command: Command, bot: Int?)? = hostTimer.map { ($0.at, $0.command, nil) }
                for (index, bot) in bots.enumerated() {
                    if let wake = bot.nextWake, next == nil || wake < next!.at {
                        next = (wake, .snap(bot.seat), index)
                    }
                }
                guard let step = next else {
                    report.violation = "nothing more can happen in round \(game.round), yet nobody won"
                    return report
                }
                now = step.at
                var command = step.command
                if let index = step.bot {
                    switch bots[index].due(at: now) {
                    case .turn: command = .turn(bots[index].seat)
                    case .snap: command = .snap(bots[index].seat)
                    case nil: continue
                    }
                } else {
                    hostTimer = nil
                }

                let events: [Event]
                do {
                    events = try game.apply(command)
                } catch {
                    report.refusedIntents += 1
                    continue
                }
                report.commandsApplied += 1
                if recording { recorded.append(command) }

                let seen = events.map(\.seen)
                for event in seen {
                    table.apply(event)
                    report.eventsChecked += 1
                    if table.cardTotal != 52 {
                        report.violation = "after \(event) the table counts \(table.cardTotal) cards"
                        return report
                    }
                    switch event {
                    case .turned: hostTimer = (now + options.pacing.nextPlayer, .activateNext)
                    case .roundStarted: hostTimer = (now + options.pacing.deal, .finishDeal)
                    case .snapCorrect: report.snapsCorrect += 1
                    case .snapWrong: report.snapsWrong += 1
                    case .snapTooLate: report.snapsTooLate += 1
                    case .turnLimitReached: report.roundsEndedByTurnLimit += 1
                    case .roundWon(let seat, _):
                        report.wins[seat, default: 0] += 1
                        finished = true
                    default: break
                    }
                }
                if let violation = game.invariantViolation() {
                    report.violation = "after \(command): \(violation)"
                    return report
                }
                if table != game.table {
                    report.violation = "after \(command): the seen table differs from the game"
                    return report
                }
                for index in bots.indices {
                    bots[index].observe(seen, table: table, now: now)
                }
                if !finished, game.turnsThisRound >= options.abandonAfterTurns {
                    // The engine has no way to call off a round, and neither has the original
                    // game: report it and stop here.
                    report.unfinishedRounds += 1
                    return report
                }
            }
            report.roundsPlayed += 1
                report.turnsPerRound.append(game.turnsThisRound)
            report.virtualTimePerRound.append(now - roundStart)
            if recording { recordedRounds.append(recorded) }
        }
        return report
    }
}
