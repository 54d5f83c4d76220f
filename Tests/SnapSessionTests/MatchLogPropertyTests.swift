import SnapBots
import SnapEngine
import SnapProtocol
import Testing
@testable import SnapSession

@Suite("The match log, folded, is the live game")
struct MatchLogPropertyTests {
    @Test("random seeds and random drops: the game folded from the log equals the host's after every step",
          arguments: Array(UInt64(1)...12))
    func foldEqualsLive(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &* 7_919)
        var config = configuration(rounds: 2, speed: 0.05, bots: Int(seed % 2), seed: seed)
        config.turnTimeout = .milliseconds(200)
        var net = VirtualNetwork(config)
        let names = ["Ann", "Bob", "Cy"].prefix(3 - Int(seed % 2))
        for (index, name) in names.enumerated() {
            net.join(.bot(BotClient(seed: seed &+ UInt64(index), timeScale: 0.05)), name: name,
                     delay: .microseconds(Int64(random.below(3_000))))
        }
        net.run(until: .seconds(1))
        net.start()
        // Drop someone at a random moment (or nobody), as a crash or a blinking network would.
        let dropAt = Duration.milliseconds(1_000 + Int64(random.below(20_000)))
        let dropper = random.below(names.count + 1)
        var replay = MatchReplay()
        var folded = 0
        var now = Duration.seconds(1)
        var steps = 0
        while net.over == nil, now < .seconds(3_600) {
            now += .milliseconds(50)
            net.run(until: now)
            if now >= dropAt, dropper < names.count, !net.clients[dropper].closed { net.disconnect(dropper) }
            for record in net.host.log[folded...] { try replay.apply(record) }
            folded = net.host.log.count
            #expect(replay.game == net.host.game, "seed \(seed), after record \(folded - 1)")
            if replay.game != net.host.game { return }
            steps += 1
        }
        #expect(net.over != nil)
        #expect(replay.commands == net.host.commandsApplied)
        #expect(replay.ended != nil)
        #expect(steps > 10)
    }
}
