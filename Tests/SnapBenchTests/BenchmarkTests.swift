import SnapBench
import SnapEngine
import Testing
import SnapTestSupport

@Suite("The benchmarks behind snap-bench, run small", .blocksThreads)
struct BenchmarkTests {
    @Test("the engine benchmark measures real work in both the engine and the baseline")
    func engineBenchmarkRuns() {
        let result = EngineBenchmark(players: 4, rounds: 2, seed: 1, minimumSeconds: 0.01).run()
        #expect(result.commands > 100)
        #expect(result.moves >= 104)
        #expect(result.events > result.commands)
        #expect(result.commandsPerSecond > 0 && result.movesPerSecond > 0 && result.ratio > 0)
    }

    @Test("the journal benchmark replays real commands and writes 1 record per command")
    func journalBenchmark() throws {
        let seats = Seat.seating(playerCount: 3)
        var game = Game(seats: seats)
        var commands: [Command] = []
        // A deal and a few turns are enough to time.
        for command in [Command.deal(seed: 5), .finishDeal] { _ = try game.apply(command); commands.append(command) }
        while commands.count < 40, let seat = game.active {
            _ = try game.apply(.turn(seat)); commands.append(.turn(seat))
            _ = try game.apply(.activateNext); commands.append(.activateNext)
        }
        let result = try JournalBenchmark(commands: commands, seats: seats, minimumSeconds: 0.05).run()
        #expect(result.commands == commands.count)
        // One framed record per command: 8 bytes of frame and at least 20 of record each.
        #expect(result.bytes > commands.count * 28)
        #expect(result.engineSeconds > 0 && result.hotPathSeconds > 0 && result.journaledSeconds >= result.hotPathSeconds)
    }
}
