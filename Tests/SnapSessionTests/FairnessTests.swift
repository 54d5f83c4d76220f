import SnapEngine
import SnapProtocol
import Testing
@testable import SnapSession

/// Two scripted players react to every match: the faster reactor sits on the slower
/// link. Judging by reaction time, not arrival, it should win nearly every time.
@Suite("Fair judging of Snap!")
struct FairnessTests {
    struct Outcome { var fast = 0; var slow = 0 }

    /// Plays until `trials` correct snaps were judged; counts who made them. Perfect
    /// players never snap wrongly, so a two-player round can cycle through the same
    /// cards forever: a turn limit keeps fresh deals coming.
    func contest(fastReaction: Duration, fastDelay: Duration, slowReaction: Duration, slowDelay: Duration,
                 slowIsLocal: Bool = false, trials: Int = 200,
                 tamper: ((ClientMessage) -> ClientMessage)? = nil) -> Outcome {
        var config = configuration(rounds: nil, speed: 1)
        config.autoNextRound = .seconds(1)
        config.rules = Rules(turnLimit: 60)
        var net = VirtualNetwork(config)
        net.join(.scripted(ClientSession(), reaction: slowReaction), name: "Slow", delay: slowDelay, local: slowIsLocal)
        net.join(.scripted(ClientSession(), reaction: fastReaction), name: "Fast", delay: fastDelay)
        if let tamper { net.tamper[1] = tamper }
        net.run(until: .seconds(1))
        net.start()
        var outcome = Outcome()
        var read = 0
        var slowSeat: Seat?
        while outcome.fast + outcome.slow < trials, net.now < .seconds(100_000) {
            net.run(until: net.now + .seconds(300))
            let frames = net.clients[0].received
            for frame in frames[read...] {
                // Seats follow the order the hellos arrived in: ask where the slow player sits.
                switch try! WireCodec.decodeHostMessage(VirtualNetwork.decode(frame)) {
                case .gameStarted(let start): slowSeat = start.yourSeat
                case .events(let batch):
                    for case .snapCorrect(let caller, _) in batch {
                        if caller == slowSeat { outcome.slow += 1 } else { outcome.fast += 1 }
                    }
                default: break
                }
            }
            read = frames.count
        }
        return outcome
    }

    @Test("the faster reaction wins though its link is 40 or 75 ms slower each way", arguments: [40, 75])
    func slowerLink(milliseconds: Int) {
        let outcome = contest(fastReaction: .milliseconds(190), fastDelay: .milliseconds(milliseconds),
                              slowReaction: .milliseconds(200), slowDelay: .zero)
        #expect(outcome.fast + outcome.slow >= 200)
        #expect(Double(outcome.fast) / Double(outcome.fast + outcome.slow) >= 0.95,
                "fast \(outcome.fast), slow \(outcome.slow)")
    }

    @Test("the host's own player gets no edge over a faster remote player")
    func hostHasNoEdge() {
        let outcome = contest(fastReaction: .milliseconds(190), fastDelay: .milliseconds(75),
                              slowReaction: .milliseconds(200), slowDelay: .zero, slowIsLocal: true)
        #expect(Double(outcome.fast) / Double(outcome.fast + outcome.slow) >= 0.95,
                "fast \(outcome.fast), slow \(outcome.slow)")
    }

    @Test("control: the nearer player wins when it really is the faster")
    func arrivalOrderIsUnfair() {
        // The same 10 ms gap, with the faster reactor on the near link this time.
        let outcome = contest(fastReaction: .milliseconds(190), fastDelay: .zero,
                              slowReaction: .milliseconds(200), slowDelay: .milliseconds(75))
        #expect(outcome.fast > outcome.slow)
    }

    @Test("on local-socket round trips (tens of µs) judging adds well under 2 ms")
    func localWindowIsShort() {
        var config = configuration(rounds: nil, speed: 1)
        config.autoNextRound = .seconds(1)
        config.rules = Rules(turnLimit: 60)
        var net = VirtualNetwork(config)
        net.join(.scripted(ClientSession(), reaction: .milliseconds(200)), name: "A", delay: .microseconds(20))
        net.join(.scripted(ClientSession(), reaction: .milliseconds(230)), name: "B", delay: .microseconds(45))
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .seconds(600))
        let waits = net.log.compactMap { line -> Int? in
            guard line.hasPrefix("judged after waiting ") else { return nil }
            return Int(line.dropFirst("judged after waiting ".count).prefix { $0.isNumber })
        }
        #expect(waits.count > 20)
        #expect(waits.allSatisfy { $0 < 2_000 }, "waits in µs: \(waits.sorted().suffix(5))")
    }

    @Test("a claim faster than the link allows is clamped")
    func cheaterIsClamped() {
        // The far player really presses 300 ms after the card but claims 1 ms.
        let outcome = contest(fastReaction: .milliseconds(300), fastDelay: .milliseconds(40),
                              slowReaction: .milliseconds(200), slowDelay: .zero) { message in
            guard case .snap(let call) = message else { return message }
            return .snap(SnapCall(seenTurns: call.seenTurns, reactionMicros: 1_000))
        }
        #expect(Double(outcome.slow) / Double(outcome.fast + outcome.slow) >= 0.95,
                "honest \(outcome.slow), cheat \(outcome.fast)")
    }
}
