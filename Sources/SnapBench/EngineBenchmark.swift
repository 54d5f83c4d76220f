import SnapEngine
import SnapSimulation

/// Engine throughput against a baseline measured in the same run: the same card
/// movements done on bare arrays, with no rules, checks or events. The ratio says
/// what the rules cost on top of moving the cards.
public struct EngineBenchmark {
    public struct Result: Sendable {
        public var commands: Int
        public var events: Int
        public var moves: Int
        public var engineSeconds: Double
        public var baselineSeconds: Double
        public var simulatedRounds: Int
        /// The simulation without its own checks (the host still checks after every command)…
        public var simulationSeconds: Double
        /// …and with them, as `snapcards simulate` runs it (the log folded again, every event checked).
        public var checkedSimulationSeconds: Double
        /// The commands replayed, in order (for measurements on top of the engine).
        public var recorded: [Command]

        public var commandsPerSecond: Double { Double(commands) / engineSeconds }
        public var eventsPerSecond: Double { Double(events) / engineSeconds }
        public var movesPerSecond: Double { Double(moves) / baselineSeconds }
        public var roundsPerSecond: Double { Double(simulatedRounds) / simulationSeconds }
        public var checkedRoundsPerSecond: Double { Double(simulatedRounds) / checkedSimulationSeconds }
        /// How many bare moves the time of one engine command would buy.
        public var ratio: Double { (engineSeconds / Double(commands)) / (baselineSeconds / Double(moves)) }
    }

    public var players: Int
    public var rounds: Int
    public var seed: UInt64
    /// Each measurement repeats until it has run at least this long.
    public var minimumSeconds: Double

    public init(players: Int = 4, rounds: Int = 100, seed: UInt64 = 1, minimumSeconds: Double = 1) {
        self.players = players
        self.rounds = rounds
        self.seed = seed
        self.minimumSeconds = minimumSeconds
    }

    public func run() -> Result {
        let options = SimulationOptions(players: players, rounds: rounds, seed: seed)
        var recorder = Simulation(options, recording: true)
        _ = recorder.run()
        let commands = recorder.recordedRounds.flatMap { $0 }
        let seats = Seat.seating(playerCount: players)

        // The moves the engine made, as pile indices (seat * 2 + closed/open), to replay bare.
        var replay = Game(seats: seats)
        var moves: [(from: Int, to: Int, toBottom: Bool)] = []
        for command in commands {
            for event in (try? replay.apply(command)) ?? [] { moves += Self.moves(of: event) }
        }

        var eventCount = 0
        let engineSeconds = Self.measure(atLeast: minimumSeconds) {
            var game = Game(seats: seats)
            var events = 0
            for command in commands { events += ((try? game.apply(command))?.count ?? 0) }
            eventCount = events
            return commands.count
        }

        let baselineSeconds = Self.measure(atLeast: minimumSeconds) {
            var piles = [[Card]](repeating: [], count: 9)  // 4 seats × 2 piles, and the deck
            piles[8] = Card.fullDeck
            for move in moves {
                // Piles run out when a round's cards are gathered; refill from the deck as the deal does.
                if piles[move.from].isEmpty { piles[move.from].append(Card.fullDeck[0]) }
                let card = piles[move.from].removeLast()
                if move.toBottom { piles[move.to].insert(card, at: 0) } else { piles[move.to].append(card) }
            }
            return moves.count
        }

        // The play's speed: the simulation's own checks are measured apart, below.
        var unchecked = options
        unchecked.checks = false
        let simulationSeconds = Self.measure(atLeast: minimumSeconds) {
            var simulation = Simulation(unchecked)
            return simulation.run().roundsPlayed
        }
        let checkedSimulationSeconds = Self.measure(atLeast: minimumSeconds) {
            var simulation = Simulation(options)
            return simulation.run().roundsPlayed
        }
        return Result(
            commands: commands.count, events: eventCount, moves: moves.count,
            engineSeconds: engineSeconds.perUnit * Double(commands.count),
            baselineSeconds: baselineSeconds.perUnit * Double(moves.count),
            simulatedRounds: rounds, simulationSeconds: simulationSeconds.perUnit * Double(rounds),
            checkedSimulationSeconds: checkedSimulationSeconds.perUnit * Double(rounds),
            recorded: commands)
    }

    /// Runs `body` (which returns how many units it did) until `atLeast` seconds passed.
    static func measure(atLeast seconds: Double, _ body: () -> Int) -> (total: Double, perUnit: Double) {
        let clock = ContinuousClock()
        var units = 0
        let start = clock.now
        var elapsed = Duration.zero
        repeat {
            units += body()
            elapsed = clock.now - start
        } while elapsed < .seconds(seconds)
        let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return (total, total / Double(max(units, 1)))
    }

    static func moves(of event: Event) -> [(from: Int, to: Int, toBottom: Bool)] {
        func closed(_ seat: Seat) -> Int { Int(seat.rawValue) * 2 }
        func open(_ seat: Seat) -> Int { Int(seat.rawValue) * 2 + 1 }
        switch event {
        case .dealt(_, let to): return [(8, closed(to), false)]
        case .turned(let seat, _): return [(closed(seat), open(seat), false)]
        case .recycled(let seat, let count): return Array(repeating: (open(seat), closed(seat), true), count: count)
        case .collected(let cards, let from, let to): return Array(repeating: (open(from), closed(to), true), count: cards.count)
        case .paid(_, let from, let to): return [(closed(from), closed(to), true)]
        case .handedOut(_, let from, let pile, let to): return [(pile == .closed ? closed(from) : open(from), closed(to), true)]
        default: return []
        }
    }
}
