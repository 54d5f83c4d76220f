import SnapBots
import SnapEngine
import SnapProtocol
import Testing
@testable import SnapSession

/// The host's budgets, bounds and timers, driven directly in virtual time: what a
/// hostile or absent client can make the session do.
@Suite("Host session: budgets, bounds and the turn timer")
struct HostLimitsTests {
    /// Feeds one input; returns what the host did.
    static func feed(_ host: inout HostSession, _ input: HostInput, at now: Duration) -> [HostAction] {
        host.handle(input, now: now)
    }

    static func closes(_ actions: [HostAction], _ id: ConnectionID) -> (CloseReason, String)? {
        for case .close(id, let reason, let message) in actions { return (reason, message) }
        return nil
    }

    @Test("1,000 sign-ins and drops in one lobby: ids are reused, nothing traps, the lobby still works")
    func idsNeverRunOut() {
        var host = HostSession(configuration())
        for index in 0..<1_000 {
            let id = ConnectionID(UInt64(index + 1))
            _ = Self.feed(&host, .connected(id, local: false), at: .zero)
            let actions = Self.feed(&host, .message(id, .hello(Hello(name: "P\(index)"))), at: .zero)
            #expect(actions.contains { if case .send(id, .welcome) = $0 { true } else { false } })
            _ = Self.feed(&host, .disconnected(id), at: .zero)
        }
        #expect(host.lobby.isEmpty)
        let last = ConnectionID(5_000)
        _ = Self.feed(&host, .connected(last, local: false), at: .zero)
        let actions = Self.feed(&host, .message(last, .hello(Hello(name: "Ann"))), at: .zero)
        #expect(actions.contains { if case .send(last, .welcome(let welcome)) = $0 { welcome.playerID == 0 } else { false } })
    }

    @Test("a repeated ready tells nobody; a ready flood is cut over budget")
    func readyFlood() {
        var host = HostSession(configuration())
        let ann = ConnectionID(1), bob = ConnectionID(2)
        for (id, name) in [(ann, "Ann"), (bob, "Bob")] {
            _ = Self.feed(&host, .connected(id, local: false), at: .zero)
            _ = Self.feed(&host, .message(id, .hello(Hello(name: name))), at: .zero)
        }
        let first = Self.feed(&host, .message(bob, .ready), at: .zero)
        #expect(first.filter { if case .send(_, .lobby) = $0 { true } else { false } }.count == 2)
        let repeated = Self.feed(&host, .message(bob, .ready), at: .zero)
        #expect(repeated.isEmpty)
        var cut: (CloseReason, String)?
        var sent = 2
        while cut == nil, sent < 1_000 {
            cut = Self.closes(Self.feed(&host, .message(bob, .ready), at: .zero), bob)
            sent += 1
        }
        #expect(sent == MessageBudget.limits(.ready).capacity + 1)
        #expect(cut?.0 == .protocolViolation)
        #expect(cut?.1 == MessageBudget.overBudgetText(.ready))
        #expect(host.lobby.map(\.name) == ["Ann"])
    }

    @Test("budgets refill: a client at its sustained rate is never cut")
    func sustainedRateIsFine() {
        var host = HostSession(configuration())
        let ann = ConnectionID(1)
        _ = Self.feed(&host, .connected(ann, local: false), at: .zero)
        _ = Self.feed(&host, .message(ann, .hello(Hello(name: "Ann"))), at: .zero)
        // One ready a second for a minute: exactly the refill rate.
        for second in 0..<60 {
            let actions = Self.feed(&host, .message(ann, .ready), at: .seconds(second))
            #expect(Self.closes(actions, ann) == nil)
            _ = Self.feed(&host, .message(ann, .pong(nonce: 0)), at: .seconds(second))
        }
    }

    @Test("a pong with a made-up nonce is no sign of life: the client is cut after 5 s")
    func fakePongs() {
        var host = HostSession(configuration())
        let ann = ConnectionID(1)
        _ = Self.feed(&host, .connected(ann, local: false), at: .zero)
        _ = Self.feed(&host, .message(ann, .hello(Hello(name: "Ann"))), at: .zero)
        var cut: (CloseReason, String)?
        var now = Duration.zero
        while cut == nil, now < .seconds(30) {
            now += .milliseconds(500)
            // Within the pong budget (2 a second), always a nonce the host never sent.
            if let actions = Optional(Self.feed(&host, .message(ann, .pong(nonce: 42)), at: now)),
               let closed = Self.closes(actions, ann) { cut = closed; break }
            cut = Self.closes(Self.feed(&host, .tick, at: now), ann)
        }
        #expect(cut?.0 == .timedOut)
        #expect(cut?.1.contains("no answer to pings") == true)
        #expect(now >= .seconds(5) && now <= .seconds(7))
    }

    @Test("a connection that never says hello is cut after 5 s; past the caps, connections are refused as busy")
    func connectionCaps() {
        var config = configuration()
        config.maxConnections = 6
        config.maxSigningIn = 3
        var host = HostSession(config)
        for raw in 1...3 { #expect(Self.feed(&host, .connected(ConnectionID(UInt64(raw)), local: false), at: .zero).isEmpty) }
        let fourth = Self.feed(&host, .connected(ConnectionID(4), local: false), at: .zero)
        #expect(Self.closes(fourth, ConnectionID(4))?.0 == .full)
        #expect(Self.closes(fourth, ConnectionID(4))?.1.contains("signing in") == true)
        // Signed-in connections count against the total cap only.
        for raw in 1...3 { _ = Self.feed(&host, .message(ConnectionID(UInt64(raw)), .hello(Hello(name: "P\(raw)"))), at: .zero) }
        for raw in 5...7 { _ = Self.feed(&host, .connected(ConnectionID(UInt64(raw)), local: false), at: .zero) }
        let seventh = Self.feed(&host, .connected(ConnectionID(8), local: false), at: .zero)
        #expect(Self.closes(seventh, ConnectionID(8))?.1.contains("connections at once") == true)
        // The idle ones (5, 6, 7) time out; the signed-in ones answered no ping either.
        var timedOut: Set<ConnectionID> = []
        var now = Duration.zero
        while now < .seconds(7) {
            now += .milliseconds(250)
            for case .close(let id, .timedOut, let why) in Self.feed(&host, .tick, at: now) {
                timedOut.insert(id)
                if id.raw >= 5 { #expect(why.contains("no hello")) }
            }
        }
        #expect(timedOut == Set((1...3).map { ConnectionID(UInt64($0)) } + (5...7).map { ConnectionID(UInt64($0)) }))
    }

    @Test("leave closes the connection; a bad name gets badName, not a protocol violation")
    func leaveAndBadNames() {
        var host = HostSession(configuration())
        let ann = ConnectionID(1)
        _ = Self.feed(&host, .connected(ann, local: false), at: .zero)
        _ = Self.feed(&host, .message(ann, .hello(Hello(name: "Ann"))), at: .zero)
        #expect(Self.feed(&host, .message(ann, .leave), at: .zero).contains(.hangUp(ann)))
        for (raw, name) in [(2, ""), (3, String(repeating: "a", count: 21)), (4, "tab\there"), (5, "bell\u{7}")] {
            let id = ConnectionID(UInt64(raw))
            _ = Self.feed(&host, .connected(id, local: false), at: .zero)
            let actions = Self.feed(&host, .message(id, .hello(Hello(name: name))), at: .zero)
            #expect(Self.closes(actions, id)?.0 == .badName, "\(String(reflecting: name))")
        }
    }

    @Test("an absent player's card is turned for them; after three, a computer plays the seat until they act")
    func turnTimer() {
        var config = configuration(rounds: 1, speed: 0.1)
        config.turnTimeout = .seconds(2)
        var net = VirtualNetwork(config)
        net.join(.bot(BotClient(seed: 1, timeScale: 0.1)), name: "Ann")
        net.join(.recorder(ClientSession()), name: "Cy")  // answers pings, never turns
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .seconds(30))
        let cy = net.messages(of: 1)
        let started = cy.compactMap { if case .gameStarted(let start) = $0 { start } else { nil } }.first
        #expect(started?.turnTimeoutMillis == 2_000)
        let seat = started?.yourSeat ?? .top
        #expect(net.log.contains { $0.hasPrefix("Cy did not turn in time: the host turned for them (1 in a row)") })
        #expect(cy.contains(.seatAway(seat, away: true)))
        #expect(net.messages(of: 0).contains(.seatAway(seat, away: true)))
        #expect(net.log.contains("seat \(seat.rawValue): Cy missed 3 turns: a computer plays for them"))
        // The round goes on without Cy, and ends.
        net.run(until: .seconds(36_000))
        #expect(net.wins.count == 1)
    }

    @Test("the owner acting again takes the seat back from the computer")
    func ownerComesBack() {
        var config = configuration(rounds: nil, speed: 0.1)
        config.turnTimeout = .seconds(1)
        var net = VirtualNetwork(config)
        net.join(.bot(BotClient(seed: 1, timeScale: 0.1)), name: "Ann")
        net.join(.recorder(ClientSession()), name: "Cy")
        net.run(until: .seconds(1))
        net.start()
        var now = Duration.seconds(1)
        while !net.messages(of: 1).contains(where: { if case .seatAway(_, true) = $0 { true } else { false } }),
              now < .seconds(120) {
            now += .seconds(1)
            net.run(until: now)
        }
        #expect(net.messages(of: 1).contains { if case .seatAway(_, true) = $0 { true } else { false } })
        net.send(.snap(SnapCall(seenTurns: 0, reactionMicros: 0)), from: 1)
        net.run(until: now + .milliseconds(10))
        #expect(net.messages(of: 0).contains { if case .seatAway(_, false) = $0 { true } else { false } })
        #expect(net.log.contains { $0.hasSuffix("Cy plays again") })
    }
}

@Suite("The turn timer as a window sees it")
struct TurnCountdownTests {
    @Test("the countdown shows the last 5 s of the active player's timer, and none for an away seat")
    func countdown() {
        var session = ClientSession()
        _ = session.receive(.welcome(Welcome(version: 2, hostName: "Host", playerID: 1)), now: .zero)
        _ = session.receive(.gameStarted(GameStart(yourSeat: .bottom, players: [
            SeatedPlayer(seat: .bottom, name: "Ann"), SeatedPlayer(seat: .top, name: "Bob"),
        ], turnLimit: nil, turnTimeoutMillis: 15_000)), now: .zero)
        _ = session.receive(.events([.roundStarted(round: 1, startingSeat: .top), .dealFinished, .activated(.top)]),
                            now: .seconds(2))
        #expect(session.turnCountdown(now: .seconds(11)) == nil)  // 6 s left
        #expect(session.turnCountdown(now: .seconds(12)) == 5)
        #expect(session.turnCountdown(now: .seconds(15.5)) == 2)
        #expect(session.turnCountdown(now: .seconds(16.9)) == 1)
        #expect(session.turnCountdown(now: .seconds(17.5)) == nil)  // ran out: the host turns
        _ = session.receive(.seatAway(.top, away: true), now: .seconds(17.5))
        #expect(session.displayName(.top) == "Bob (away)")
        _ = session.receive(.events([.activated(.top)]), now: .seconds(18))
        #expect(session.turnCountdown(now: .seconds(30)) == nil)  // a computer plays Bob: no timer
        _ = session.receive(.seatAway(.top, away: false), now: .seconds(30))
        #expect(session.displayName(.top) == "Bob")
        #expect(session.turnCountdown(now: .seconds(41)) == 4)  // back on his turn: a fresh 15 s
    }
}
