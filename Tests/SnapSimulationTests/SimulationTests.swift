import SnapBots
import SnapEngine
import Testing
@testable import SnapSimulation

@Suite("Headless simulation")
struct SimulationTests {
    @Test("full rounds for 2, 3 and 4 players: every round won, cards conserved", arguments: [2, 3, 4])
    func fullRounds(players: Int) {
        var simulation = Simulation(SimulationOptions(players: players, rounds: 5, seed: UInt64(players)))
        let report = simulation.run()
        #expect(report.violation == nil)
        #expect(report.roundsPlayed == 5)
        #expect(report.unfinishedRounds == 0)
        #expect(report.wins.values.reduce(0, +) == 5)
        #expect(report.turnsPerRound.count == 5)
        #expect(report.turnsPerRound.allSatisfy { $0 > 0 })
        #expect(report.snapsCorrect > 0)
        #expect(report.eventsChecked > 5 * 52)
    }

    @Test("without its own checks the simulation plays the same game, and says the checks were off")
    func unchecked() {
        var checked = Simulation(SimulationOptions(players: 4, rounds: 4, seed: 9), recording: true)
        var plain = Simulation(SimulationOptions(players: 4, rounds: 4, seed: 9, checks: false), recording: true)
        let (checkedReport, plainReport) = (checked.run(), plain.run())
        #expect(plainReport.violation == nil && plainReport.roundsPlayed == 4)
        #expect(plainReport.wins == checkedReport.wins && plainReport.turnsPerRound == checkedReport.turnsPerRound)
        #expect(plain.recordedRounds == checked.recordedRounds)
        #expect(plainReport.eventsChecked == 0 && checkedReport.eventsChecked > 0)
        #expect(plainReport.summary.contains("the simulation's own checks were off"))
        #expect(!checkedReport.summary.contains("checks were off"))
    }

    @Test("the same seed prints the same bytes; another seed does not")
    func deterministic() {
        func summary(_ seed: UInt64) -> String {
            var simulation = Simulation(SimulationOptions(players: 4, rounds: 3, seed: seed, level: .hard))
            return simulation.run().summary
        }
        #expect(summary(77) == summary(77))
        #expect(summary(77) != summary(78))
    }

    @Test("the turn limit ends every round within its turns")
    func turnLimit() {
        var simulation = Simulation(SimulationOptions(players: 4, rounds: 20, seed: 4, rules: Rules(turnLimit: 60)))
        let report = simulation.run()
        #expect(report.violation == nil)
        #expect(report.roundsPlayed == 20)
        #expect(report.turnsPerRound.allSatisfy { $0 <= 60 })
        #expect(report.roundsEndedByTurnLimit > 0)
        #expect(report.summary.contains("ended by the turn limit: \(report.roundsEndedByTurnLimit)"))
    }

    @Test("a round past the safety stop is reported unfinished")
    func abandon() {
        var simulation = Simulation(SimulationOptions(players: 4, rounds: 3, seed: 4, abandonAfterTurns: 5))
        let report = simulation.run()
        #expect(report.unfinishedRounds == 1)
        #expect(report.roundsPlayed == 0)
        #expect(report.summary.contains("stopped: a round passed 5 turns"))
    }

    @Test("replaying the recorded commands reproduces the game")
    func replay() throws {
        var simulation = Simulation(SimulationOptions(players: 3, rounds: 2, seed: 12), recording: true)
        let report = simulation.run()
        var game = Game(seats: Seat.seating(playerCount: 3))
        for command in simulation.recordedRounds.joined() { try game.apply(command) }
        #expect(game.round == 2)
        for seat in game.seats { #expect(game.hand(seat).wins == report.wins[seat] ?? 0) }
    }

    @Test("percentiles by nearest rank")
    func percentiles() {
        let values = Array(1...100)
        #expect(percentile(values, 50) == 50)
        #expect(percentile(values, 99) == 99)
        #expect(percentile([7], 99) == 7)
        #expect(percentile([1, 2, 3], 50) == 2)
    }
}
