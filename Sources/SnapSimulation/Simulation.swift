import SnapBots
import SnapEngine
import SnapProtocol
import SnapSession

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
    /// The simulation's own checks (`snapcards simulate`, the tests): the match log folded again
    /// after every record, the seen table's total after every event, and after every command
    /// the full invariant and the seen table against the game. Off (a benchmark of the
    /// play's speed), only the host's own check after every command remains.
    public var checks: Bool

    public init(players: Int = 4, rounds: Int = 10, seed: UInt64 = 1, level: BotLevel = .normal,
                rules: Rules = .original, pacing: Pacing = .original, abandonAfterTurns: Int = 100_000,
                checks: Bool = true) {
        self.players = players
        self.rounds = rounds
        self.seed = seed
        self.level = level
        self.rules = rules
        self.pacing = pacing
        self.abandonAfterTurns = abandonAfterTurns
        self.checks = checks
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

/// Computer players against each other in virtual time: a real `HostSession` seats only
/// its own computer players, and its timers and the bots' delays are values on one
/// timeline, so a round of many minutes runs in microseconds and the same seed always
/// plays the same game. The report is read from the host's match log — the same log a
/// journal, a replay and a rejoin read — folded again here and checked after every command.
public struct Simulation {
    public let options: SimulationOptions
    /// Every command applied, per round, for replay (benchmarks) when asked for.
    public private(set) var recordedRounds: [[Command]] = []
    /// The host's whole match log, as a journal holds it, when recording.
    public private(set) var records: [MatchRecord] = []
    private let recording: Bool

    public init(_ options: SimulationOptions, recording: Bool = false) {
        precondition((2...4).contains(options.players), "2 to 4 players")
        self.options = options
        self.recording = recording
    }

    public mutating func run() -> SimulationReport {
        var configuration = HostConfiguration(hostName: "Simulation")
        configuration.bots = options.players
        configuration.botLevel = options.level
        configuration.seed = options.seed
        configuration.nonceSeed = options.seed
        // The same seed plays the same game: deals derived from it, not secret.
        configuration.secretDeals = false
        configuration.rules = options.rules
        configuration.pacing = options.pacing
        configuration.rounds = options.rounds
        configuration.autoNextRound = .zero
        configuration.turnTimeout = nil
        var host = HostSession(configuration)
        var report = SimulationReport(options: options, seats: [], names: [:])
        var replay = MatchReplay()
        var table = TableView(seats: [])
        var now = Duration.zero
        var roundStart = Duration.zero
        var turns = 0
        // Between a deal's end and the round's win (from the events; the checks read the game).
        var playing = false
        var recorded: [Command] = []

        var actions = host.handle(.start, now: now)
        while true {
            for action in actions {
                switch action {
                case .log(let line) where line.hasPrefix("refused "):
                    report.refusedIntents += 1
                case .record(let record):
                    if recording { records.append(record) }
                    if options.checks {
                        do {
                            try replay.apply(record)
                        } catch {
                            report.violation = "the match log does not fold: \(error)"
                            return report
                        }
                    }
                    switch record.entry {
                    case .started(let start):
                        report.seats = start.players.map(\.seat)
                        report.names = Dictionary(uniqueKeysWithValues: start.players.map { ($0.seat, $0.name) })
                        table = TableView(seats: report.seats)
                    case .applied(let command, let events):
                        report.commandsApplied += 1
                        if recording { recorded.append(command) }
                        for event in events {
                            if options.checks {
                                let seen = event.seen
                                table.apply(seen)
                                report.eventsChecked += 1
                                if table.cardTotal != 52 {
                                    report.violation = "after \(seen) the table counts \(table.cardTotal) cards"
                                    return report
                                }
                            }
                            switch event {
                            case .roundStarted:
                                roundStart = now
                                turns = 0
                                playing = false
                            case .dealFinished: playing = true
                            case .turned: turns += 1
                            case .snapCorrect: report.snapsCorrect += 1
                            case .snapWrong: report.snapsWrong += 1
                            case .snapTooLate: report.snapsTooLate += 1
                            case .turnLimitReached: report.roundsEndedByTurnLimit += 1
                            case .roundWon(let seat, _):
                                report.wins[seat, default: 0] += 1
                                report.roundsPlayed += 1
                                playing = false
                                report.turnsPerRound.append(turns)
                                report.virtualTimePerRound.append(now - roundStart)
                                if recording { recordedRounds.append(recorded) }
                                recorded = []
                            default: break
                            }
                        }
                        var inPlay = playing
                        if options.checks {
                            guard let game = replay.game else { break }
                            if let violation = game.invariantViolation() {
                                report.violation = "after \(command): \(violation)"
                                return report
                            }
                            if table != game.table {
                                report.violation = "after \(command): the seen table differs from the game"
                                return report
                            }
                            if case .playing = game.phase { inPlay = true } else { inPlay = false }
                        } else if let violation = host.invariantViolation {
                            report.violation = violation  // the host's own check, after every command
                            return report
                        }
                        if turns >= options.abandonAfterTurns, inPlay {
                            // The engine has no way to call off a round, and neither has the
                            // original game: report it and stop here.
                            report.unfinishedRounds += 1
                            return report
                        }
                    case .ended:
                        return report
                    case .committed, .revealed:
                        // The fair deal's commitment and reveal: `replay.apply` checked them.
                        break
                    }
                default:
                    break
                }
            }
            guard host.phase != .over, let next = host.nextDeadline else { break }
            now = max(now, next)
            actions = host.handle(.tick, now: now)
        }
        if report.roundsPlayed < options.rounds, report.violation == nil {
            report.violation = "nothing more can happen in round \(report.roundsPlayed + 1), yet nobody won"
        }
        return report
    }
}
