import SnapBots
import SnapEngine
import SnapProtocol
import Testing
@testable import SnapSession

func configuration(rounds: Int? = 1, speed: Double = 1, bots: Int = 0, seed: UInt64 = 3) -> HostConfiguration {
    var configuration = HostConfiguration(hostName: "Host")
    configuration.rounds = rounds
    configuration.speed = speed
    configuration.bots = bots
    configuration.seed = seed
    // Reproducible deals: a test's seed fixes them (FairDealTests asks for secret ones).
    configuration.secretDeals = false
    configuration.autoNextRound = .seconds(1)
    return configuration
}

extension VirtualNetwork {
    func messages(of index: Int) -> [HostMessage] {
        clients[index].received.map { try! WireCodec.decodeHostMessage(Self.decode($0)) }
    }

    func closing(of index: Int) -> (CloseReason, String)? {
        for case .closing(let reason, let message) in messages(of: index) { return (reason, message) }
        return nil
    }
}

@Suite("Host session in virtual time")
struct HostSessionTests {
    @Test("a host and three network bots play full rounds; every client hears the game end")
    func fullGame() {
        var net = VirtualNetwork(configuration(rounds: 2, speed: 0.2))
        for (index, name) in ["Ann", "Bob", "Cy"].enumerated() {
            net.join(.bot(BotClient(seed: UInt64(index), timeScale: 0.2)), name: name, delay: .milliseconds(1))
        }
        net.run(until: .seconds(1))
        #expect(net.host.lobby.map(\.name) == ["Ann", "Bob", "Cy"])
        #expect(net.host.lobby.allSatisfy { $0.ready })
        net.start()
        net.run(until: .seconds(36_000))
        #expect(net.wins.count == 2)
        #expect(net.over == "all 2 rounds played")
        for index in 0..<3 { #expect(net.closing(of: index)?.0 == .gameFinished) }
        #expect(net.host.game?.invariantViolation() == nil)
    }

    @Test("host bots fill seats; one network player is enough to start")
    func hostBots() {
        var net = VirtualNetwork(configuration(rounds: 1, speed: 0.1, bots: 2))
        net.join(.bot(BotClient(seed: 9, timeScale: 0.1)), name: "Ann")
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .seconds(36_000))
        #expect(net.wins.count == 1)
        guard case .gameStarted(let start) = net.messages(of: 0).first(where: { if case .gameStarted = $0 { true } else { false } }) else {
            Issue.record("no gameStarted"); return
        }
        #expect(start.players.map(\.name) == ["Ann", "Ray", "Lucy"])
        #expect(start.players.map(\.seat) == [.bottom, .left, .top])
    }

    @Test("the lobby refuses a fourth client, a taken name, an old version, and anyone after the start")
    func refusals() {
        var net = VirtualNetwork(configuration())
        for name in ["Ann", "Bob", "Cy"] { net.join(.recorder(ClientSession()), name: name) }
        net.join(.recorder(ClientSession()), name: "Dee")
        net.join(.recorder(ClientSession()), name: "ann")
        net.run(until: .seconds(1))
        #expect(net.closing(of: 3)?.0 == .full)
        #expect(net.closing(of: 3)?.1.contains("full") == true)
        #expect(net.closing(of: 4)?.0 == .nameTaken)

        var old = VirtualNetwork(configuration())
        old.clients.append(.init(connection: ConnectionID(1), peer: .recorder(ClientSession()), delay: .zero))
        old.perform(old.host.handle(.connected(ConnectionID(1), local: false), now: .zero))
        old.send(.hello(Hello(versions: 7...9, name: "Zed")), from: 0)
        old.run(until: .seconds(1))
        #expect(old.closing(of: 0)?.0 == .versionUnsupported)

        var started = VirtualNetwork(configuration(bots: 1))
        started.join(.recorder(ClientSession()), name: "Ann")
        started.run(until: .seconds(1))
        started.start()
        started.join(.recorder(ClientSession()), name: "Late")
        started.run(until: .seconds(2))
        #expect(started.closing(of: 1)?.0 == .gameStarted)
    }

    @Test("a ready that crosses the start is ignored, not a violation: the player stays")
    func lateReady() {
        var net = VirtualNetwork(configuration(rounds: 1, speed: 0.1, bots: 1))
        net.join(.bot(BotClient(seed: 1, timeScale: 0.1)), name: "Ann")
        net.run(until: .seconds(1))
        net.start()
        net.send(.ready, from: 0)
        net.run(until: .seconds(36_000))
        #expect(net.closing(of: 0)?.0 == .gameFinished)
        #expect(net.log.contains("ignored a ready from Ann after the start"))
        #expect(net.wins.count == 1)
    }

    @Test("start needs two players")
    func startNeedsTwo() {
        var net = VirtualNetwork(configuration())
        net.join(.recorder(ClientSession()), name: "Ann")
        net.run(until: .seconds(1))
        net.start()
        #expect(net.host.phase == .lobby)
        #expect(net.log.contains { $0.contains("at least two players") })
    }

    @Test("messages out of place are protocol violations: that connection is cut, the others play on")
    func violations() {
        var net = VirtualNetwork(configuration(rounds: 1, speed: 0.1))
        net.join(.bot(BotClient(seed: 1, timeScale: 0.1)), name: "Ann")
        net.join(.bot(BotClient(seed: 2, timeScale: 0.1)), name: "Bob")
        net.join(.recorder(ClientSession()), name: "Cy")
        net.run(until: .seconds(1))
        net.send(.hello(Hello(name: "Again")), from: 2)
        net.run(until: .seconds(2))
        #expect(net.closing(of: 2)?.0 == .protocolViolation)
        #expect(net.closing(of: 2)?.1 == "hello sent twice")
        net.start()
        net.run(until: .seconds(36_000))
        #expect(net.wins.count == 1)
    }

    @Test("a flood of snaps cuts that connection; the round goes on and the cards are handed out")
    func snapFlood() {
        var net = VirtualNetwork(configuration(rounds: 1, speed: 0.1))
        net.join(.bot(BotClient(seed: 1, timeScale: 0.1)), name: "Ann")
        net.join(.bot(BotClient(seed: 2, timeScale: 0.1)), name: "Bob")
        net.join(.recorder(ClientSession()), name: "Cy")
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .seconds(10))
        for _ in 0..<25 { net.send(.snap(SnapCall(seenTurns: 0, reactionMicros: 0)), from: 2) }
        net.run(until: .seconds(11))
        #expect(net.closing(of: 2)?.0 == .protocolViolation)
        #expect(net.closing(of: 2)?.1 == MessageBudget.overBudgetText(.snap))
        #expect(net.messages(of: 0).contains(.seatLeft(.top, .dropped)))
        net.run(until: .seconds(36_000))
        #expect(net.wins.count == 1)
        #expect(net.host.game?.hand(.top).hasCards == false)
    }

    @Test("a silent peer is dropped within the keepalive bound")
    func keepalive() {
        var net = VirtualNetwork(configuration(rounds: 1, speed: 0.1, bots: 1))
        net.join(.bot(BotClient(seed: 1, timeScale: 0.1)), name: "Ann")
        net.join(.silent, name: "Zed")
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .milliseconds(7_000))
        #expect(net.closing(of: 1)?.0 == .timedOut)
        #expect(net.closing(of: 0) == nil)
        let cut = net.log.first { $0.contains("timedOut") }
        #expect(cut != nil)
    }

    @Test("a player who quits: the others learn it, the cards are redistributed, the round finishes")
    func quitter() {
        var net = VirtualNetwork(configuration(rounds: 1, speed: 0.1))
        net.join(.bot(BotClient(seed: 1, timeScale: 0.1)), name: "Ann")
        net.join(.bot(BotClient(seed: 2, timeScale: 0.1)), name: "Bob")
        net.join(.bot(BotClient(seed: 3, timeScale: 0.1)), name: "Cy")
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .seconds(30))
        net.send(.leave, from: 1)
        net.run(until: .seconds(31))
        #expect(net.messages(of: 0).contains(.seatLeft(.left, .quit)))
        let handed = net.messages(of: 0).flatMap { message -> [SeatEvent] in
            if case .events(let events) = message { events } else { [] }
        }.filter { if case .handedOut(_, .left, _, _) = $0 { true } else { false } }
        #expect(!handed.isEmpty)
        net.disconnect(2)
        net.run(until: .seconds(36_000))
        #expect(net.wins.count == 1)
        #expect(net.host.game?.invariantViolation() == nil)
    }

    @Test("the host quitting closes every connection with hostQuit")
    func hostQuits() {
        var net = VirtualNetwork(configuration(rounds: nil, speed: 0.1, bots: 1))
        net.join(.bot(BotClient(seed: 1, timeScale: 0.1)), name: "Ann")
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .seconds(20))
        net.perform(net.host.handle(.quit, now: net.now))
        net.run(until: .seconds(21))
        #expect(net.closing(of: 0)?.0 == .hostQuit)
        #expect(net.over == "the host ended the game")
    }

    @Test("hidden information: no message ever names a face-down card")
    func hiddenInformation() {
        var net = VirtualNetwork(configuration(rounds: 1, speed: 0.1, bots: 2))
        net.join(.recorder(ClientSession()), name: "Eve")
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .seconds(36_000))
        var events: [SeatEvent] = []
        for case .events(let batch) in net.messages(of: 0) { events += batch }
        #expect(events.count > 52)
        for event in events {
            switch event {
            case .dealt(let card, _), .paid(let card, _, _), .handedOut(let card, _, .closed, _):
                #expect(card == nil)
            default: break
            }
        }
    }
}
