import SnapBots
import SnapBytes
import SnapEngine
import SnapProtocol
import Testing
@testable import SnapSession

/// The seating alone: connections, hellos, the lobby, tokens, watchers and who sits where,
/// read from the steps it returns, with no game running and no network.
@Suite("Seating: seats and sign-in")
struct SeatingTests {
    static func seating(_ change: (inout HostConfiguration) -> Void = { _ in }) -> Seating {
        var configuration = HostConfiguration(hostName: "Host")
        change(&configuration)
        return Seating(configuration)
    }

    /// Connects and signs in a player; returns their welcome.
    @discardableResult
    static func join(_ seating: inout Seating, _ raw: UInt64, _ name: String, local: Bool = false,
                     phase: HostSession.Phase = .lobby, game: Game? = nil, token: SeatToken? = nil) -> [Seating.Step] {
        _ = seating.connect(ConnectionID(raw), local: local, remote: nil)
        return seating.signIn(Hello(name: name, token: token), from: ConnectionID(raw), phase: phase, game: game, now: .zero)
    }

    static func welcome(_ steps: [Seating.Step]) -> Welcome? {
        for case .act(.send(_, .welcome(let welcome))) in steps { return welcome }
        return nil
    }

    static func cut(_ steps: [Seating.Step]) -> CloseReason? {
        for case .cut(_, let reason, _) in steps { return reason }
        return nil
    }

    @Test("a hello: welcome with a token, a sign of life, a log line, the lobby to everyone; the host's own player is ready at once")
    func signIn() {
        var seating = Self.seating()
        Self.join(&seating, 1, "Host", local: true)
        let steps = Self.join(&seating, 2, "Ann")
        let welcome = Self.welcome(steps)
        #expect(welcome?.playerID == 1 && welcome?.token != nil)
        #expect(steps.contains(.signedIn(ConnectionID(2))))
        #expect(steps.contains(.act(.log("Ann joined from #2"))))
        let lobby = [LobbyPlayer(id: 0, name: "Host", ready: true), LobbyPlayer(id: 1, name: "Ann", ready: false)]
        #expect(steps.suffix(2) == [.act(.send(ConnectionID(1), .lobby(lobby))), .act(.send(ConnectionID(2), .lobby(lobby)))])
        #expect(seating.clientCount == 1)
        let ready = seating.ready(from: ConnectionID(2), phase: .lobby)
        #expect(ready.count == 2)  // the lobby again, to both
        let again = seating.ready(from: ConnectionID(2), phase: .lobby)
        #expect(again.isEmpty)  // a repeat tells nobody
        let late = seating.ready(from: ConnectionID(2), phase: .playing)
        #expect(late == [.act(.log("ignored a ready from Ann after the start"))])
    }

    @Test("refusals: a taken name, a full game, a full table, a bad name, an old version, anyone after the start")
    func refusals() {
        var seating = Self.seating { $0.maxClients = 2; $0.bots = 2 }
        Self.join(&seating, 1, "Ann")
        let taken = Self.join(&seating, 2, "ANN")
        #expect(Self.cut(taken) == .nameTaken)
        Self.join(&seating, 3, "Bob")
        let fullGame = Self.join(&seating, 4, "Cy")
        #expect(Self.cut(fullGame) == .full)  // two clients joined
        let fullTable = Self.join(&seating, 5, "Me", local: true)
        #expect(Self.cut(fullTable) == .full)  // 2 players + 2 computers: the table
        let badName = Self.join(&seating, 6, "")
        #expect(Self.cut(badName) == .badName)
        _ = seating.connect(ConnectionID(7), local: false, remote: nil)
        let old = seating.signIn(Hello(versions: 1...2, name: "Old"), from: ConnectionID(7), phase: .lobby, game: nil, now: .zero)
        #expect(Self.cut(old) == .versionUnsupported)
        var started = Self.seating()
        let late = Self.join(&started, 1, "Late", phase: .playing)
        #expect(Self.cut(late) == .gameStarted)
    }

    @Test("past the caps a connection is refused as busy; the host's own never")
    func caps() {
        var seating = Self.seating { $0.maxConnections = 3; $0.maxSigningIn = 2 }
        var refusals: [String?] = []
        for (raw, local) in [(1, false), (2, false), (3, false), (4, true)] {
            refusals.append(seating.connect(ConnectionID(UInt64(raw)), local: local, remote: nil)?.1)
        }
        #expect(refusals == [nil, nil, "the host is busy: 2 connections are signing in", nil])
        _ = seating.signIn(Hello(name: "Ann"), from: ConnectionID(1), phase: .lobby, game: nil, now: .zero)
        let fifth = seating.connect(ConnectionID(5), local: false, remote: nil)
        #expect(fifth?.1 == "the host is busy: 3 connections at once is its limit")
    }

    @Test("budgets: a flood of readies runs out; the host's own player has none")
    func budgets() {
        var seating = Self.seating()
        _ = seating.connect(ConnectionID(1), local: false, remote: nil)
        _ = seating.connect(ConnectionID(2), local: true, remote: nil)
        let capacity = MessageBudget.limits(.ready).capacity
        var taken = 0
        while seating.withinBudget(.ready, from: ConnectionID(1), now: .zero), taken < 1_000 { taken += 1 }
        #expect(taken == capacity)
        var local = 0
        while seating.withinBudget(.ready, from: ConnectionID(2), now: .zero), local < 1_000 { local += 1 }
        #expect(local == 1_000)
    }

    @Test("the start seats the host's computers after everyone, named as the original; the seats go clockwise from the bottom")
    func seatEveryone() {
        var seating = Self.seating { $0.bots = 2 }
        Self.join(&seating, 1, "Lucy")
        let seated = seating.seatEveryone(computers: 2)
        #expect(seated.seats == [.bottom, .left, .top])
        #expect(seated.computers == [false, true, true])
        #expect(seating.players.map(\.name) == ["Lucy", "Ray", "Steve"])
        #expect(seating.gameStart(for: .bottom).players.map(\.name) == ["Lucy", "Ray", "Steve"])
        #expect(seating.tokensBySeat.keys.sorted() == [.bottom])  // computers hold no token
        #expect(seating.seat(of: ConnectionID(1), phase: .playing) == .bottom)
        #expect(seating.seat(of: ConnectionID(1), phase: .lobby) == nil)
    }

    @Test("a token takes its seat back: the old connection is replaced; mid-game, the table catches up and the seat returns")
    func rejoin() throws {
        var seating = Self.seating()
        let token = try #require(Self.welcome(Self.join(&seating, 1, "Ann"))?.token)
        Self.join(&seating, 2, "Bob")
        let lobbyAgain = Self.join(&seating, 3, "Ann", token: token)
        #expect(lobbyAgain.first == .replace(ConnectionID(1)))
        #expect(Self.welcome(lobbyAgain)?.playerID == 0)
        #expect(seating.connections[ConnectionID(1)] == nil)

        let seats = seating.seatEveryone(computers: 0).seats
        var game = Game(seats: seats)
        try game.apply(.deal(seed: 1))
        try game.apply(.finishDeal)
        guard case .player(let ann) = seating.disconnect(ConnectionID(3), phase: .playing) else {
            Issue.record("Ann's connection held no player"); return
        }
        #expect(ann.name == "Ann")
        #expect(seating.players[0].connection == nil && seating.players[0].seat == .bottom)  // the seat waits
        try game.apply(.absent(.bottom))
        let back = Self.join(&seating, 4, "Ann", phase: .playing, game: game, token: token)
        #expect(back.contains(.catchUp(ConnectionID(4))))
        #expect(back.last == .returned(.bottom))
        let stranger = Self.join(&seating, 5, "Eve", phase: .playing, game: game, token: SeatToken(bytes: Array(repeating: 7, count: 16)))
        #expect(Self.cut(stranger) == .badToken)
    }

    @Test("watchers: welcomed with no seat, counted to everyone, and gone when they leave")
    func watchers() {
        var seating = Self.seating()
        Self.join(&seating, 1, "Ann")
        _ = seating.connect(ConnectionID(2), local: false, remote: nil)
        let steps = seating.signIn(Hello(name: "Eve", role: .watcher), from: ConnectionID(2), phase: .lobby, game: nil, now: .zero)
        #expect(Self.welcome(steps)?.playerID == 0xFF)
        #expect(steps.suffix(2) == [.act(.send(ConnectionID(1), .watching(1))), .act(.send(ConnectionID(2), .watching(1)))])
        #expect(seating.audience == [ConnectionID(1), ConnectionID(2)])
        if case .watcher = seating.disconnect(ConnectionID(2), phase: .lobby) {} else { Issue.record("not a watcher") }
        #expect(seating.watchingBroadcast() == [.send(ConnectionID(1), .watching(0))])
        if case .player = seating.disconnect(ConnectionID(1), phase: .lobby) {} else { Issue.record("not a player") }
        #expect(seating.lobby.isEmpty)
        let unknown = seating.disconnect(ConnectionID(1), phase: .lobby)
        #expect(unknown == nil)
    }

    @Test("the join code: asked of TCP only; wrong ones counted per address and paused, 1 s then 2 s")
    func joinCode() {
        var configuration = HostConfiguration(hostName: "Host")
        configuration.joinCode = "K7QX4M"
        var guardian = JoinCodeGuard(configuration)
        #expect(!guardian.isAsked(of: nil) && guardian.isAsked(of: "192.0.2.7"))
        var verdicts = [guardian.check("", from: nil, now: .zero)]
        for _ in 1...3 { verdicts.append(guardian.check("AAAAAA", from: "192.0.2.7", now: .zero)) }
        verdicts.append(guardian.check("K7QX4M", from: "192.0.2.7", now: .milliseconds(500)))
        verdicts.append(guardian.check("k7q-x4m", from: "192.0.2.8", now: .milliseconds(500)))
        let wrong = "wrong join code: ask the host for the 6-character join code shown in its lobby"
        #expect(verdicts == [.accepted] + (1...3).map { .refused(wrong, announce: "wrong join code from 192.0.2.7 (\($0) in a row)") }
            + [.refused("too many wrong join codes from 192.0.2.7: try again in 1 s", announce: nil), .accepted])
        let fourth = guardian.check("BBBBBB", from: "192.0.2.7", now: .seconds(1))
        #expect(fourth != .accepted)
        #expect(guardian.wrongCodes["192.0.2.7"]?.refusedUntil == .seconds(3))  // 2 s this time
        let later = guardian.check("K7QX4M", from: "192.0.2.7", now: .seconds(3))
        #expect(later == .accepted)
        #expect(guardian.wrongCodes.isEmpty)
    }
}
