import ArgumentParser
import SnapBots
import SnapEngine
import SnapSimulation

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Computer players play full rounds in virtual time; prints a summary.",
        discussion: "The same options print the same bytes. Exits 1 if card conservation ever fails.")

    @Option(help: "Players at the table, 2 to 4.") var players = 4
    @Option(help: "Rounds to play.") var rounds = 10
    @Option(help: "Seed for the deal and the computer players.") var seed: UInt64 = 1
    @Option(help: "Computer players' level: easy, normal or hard.") var level = BotLevel.normal
    @Option(help: "Give up (and exit 2) when a round passes this many turns.") var abandonAfter = 100_000
    @OptionGroup var ruleOptions: RuleOptions

    func validate() throws {
        guard (2...4).contains(players) else { throw ValidationError("--players must be 2, 3 or 4") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        guard abandonAfter >= 1 else { throw ValidationError("--abandon-after must be at least 1") }
    }

    func run() throws {
        var simulation = Simulation(SimulationOptions(
            players: players, rounds: rounds, seed: seed, level: level, rules: ruleOptions.rules,
            abandonAfterTurns: abandonAfter))
        let report = simulation.run()
        print(report.summary)
        if report.violation != nil { throw ExitCode(1) }
        if report.unfinishedRounds > 0 { throw ExitCode(2) }
    }
}
