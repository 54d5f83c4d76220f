import Benchmark
import SnapEngine
import SnapSimulation

// The engine alone: commands a simulated match really applied, replayed through
// `Game.apply` on a fresh game. `snap-bench engine` measures the same replay against a
// bare-array baseline in the same run; here the harness adds allocation counts and
// baselines kept between runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        maxDuration: .seconds(2))

    // Four computer players, seed 1: the commands every round's host applied, deals
    // (with their seeds) included, so the commands alone replay the match.
    var simulation = Simulation(SimulationOptions(players: 4, rounds: 10, seed: 1), recording: true)
    _ = simulation.run()
    let seats = Seat.seating(playerCount: 4)
    let round = simulation.recordedRounds[0]
    let match = simulation.recordedRounds.flatMap { $0 }

    Benchmark("Game.apply: one round, 4 players (\(round.count) commands)") { benchmark in
        var game = Game(seats: seats)
        for command in round { blackHole(try? game.apply(command)) }
    }

    Benchmark("Game.apply: a match of 10 rounds, 4 players (\(match.count) commands)") { benchmark in
        var game = Game(seats: seats)
        for command in match { blackHole(try? game.apply(command)) }
    }

    // One command on its own: the first turn of the round, from a copy of the game just
    // before it (so the copy-on-write of the piles is in the figure, as it is for a host
    // that keeps the previous state).
    let firstTurn = round.firstIndex { if case .turn = $0 { true } else { false } }!
    var beforeTurn = Game(seats: seats)
    for command in round[..<firstTurn] { _ = try? beforeTurn.apply(command) }
    let turn = round[firstTurn]
    let prepared = beforeTurn
    Benchmark("Game.apply: a turn", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            var game = prepared
            blackHole(try? game.apply(turn))
        }
    }
}
