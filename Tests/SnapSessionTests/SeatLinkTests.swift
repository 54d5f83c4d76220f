import SnapBytes
import SnapEngine
import SnapProtocol
import SnapSession
import Testing

/// A seat's link alone, on a clock the test moves: what it dials, writes, delivers and
/// keeps, through drops, refusals, a host restart and a stall.
@Suite("SeatLink: a seat's connection in virtual time")
struct SeatLinkTests {
    typealias Action = SeatLink.Action

    static let kept = SeatToken(bytes: Array(1...16))!
    static let given = SeatToken(bytes: Array(repeating: 9, count: 16))!
    static let started = GameStart(yourSeat: .bottom, players: [SeatedPlayer(seat: .bottom, name: "Ann"),
                                                                SeatedPlayer(seat: .top, name: "Bob")],
                                   turnLimit: nil, graceMillis: 30_000)
    static let snapshot = TableSnapshot(table: TableView(seats: [.bottom, .top]), turnsThisRound: 3)

    static func welcome(_ token: SeatToken?) -> HostMessage {
        .welcome(Welcome(version: ProtocolVersion.supported.upperBound, hostName: "Table", playerID: 1, token: token))
    }

    /// The link and the time; `step` feeds one input at a moment.
    struct Driver {
        var link: SeatLink
        var now: Duration = .zero

        init(token: SeatToken? = nil, rejoins: Bool = true) {
            link = SeatLink(.init(hello: Hello(name: "Ann", token: token), rejoins: rejoins))
        }

        mutating func step(_ input: SeatLink.Input, at time: Duration? = nil) -> [Action] {
            if let time { now = time }
            return link.handle(input, now: now)
        }

        /// Signed in and seated: connection 1 open, welcomed with `given`, the game started.
        mutating func seated() {
            _ = step(.start)
            _ = step(.connected(generation: 1))
            _ = step(.received(SeatLinkTests.welcome(SeatLinkTests.given), generation: 1))
            _ = step(.received(.gameStarted(SeatLinkTests.started), generation: 1))
        }
    }

    @Test("a drop mid-game: redials after 100, 200, 400, 800, 1000 ms, rejoins with its token; only the snapshot is delivered")
    func dropBackoffRejoin() {
        var driver = Driver()
        #expect(driver.step(.start) == [.connect(generation: 1, after: .zero, patience: .seconds(5))])
        #expect(driver.step(.connected(generation: 1)) == [.send(.hello(Hello(name: "Ann")), sequence: 0)])
        #expect(driver.step(.received(Self.welcome(Self.given), generation: 1))
                    == [.keepToken(Self.given), .deliver(Self.welcome(Self.given))])
        #expect(driver.step(.send(.ready)) == [.send(.ready, sequence: 1)])
        #expect(driver.step(.received(.gameStarted(Self.started), generation: 1)) == [.deliver(.gameStarted(Self.started))])
        #expect(driver.link.grace == .seconds(30))

        let reason = "the host closed the connection"
        #expect(driver.step(.lost(generation: 1, reason: reason), at: .seconds(10))
                    == [.close(generation: 1), .reconnecting(reason), .connect(generation: 2, after: .milliseconds(100), patience: .seconds(1))])
        #expect(driver.step(.send(.turn)) == [], "nothing is written while there is no connection")
        var pauses: [Duration] = []
        for generation in 2...6 {
            let actions = driver.step(.connectFailed(generation: generation, reason: "refused"), at: driver.now + .seconds(1))
            guard case .connect(generation + 1, let after, .seconds(1))? = actions.first, actions.count == 1 else {
                Issue.record("after failure \(generation): \(actions)")
                return
            }
            pauses.append(after)
        }
        #expect(pauses == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])

        #expect(driver.step(.connected(generation: 7)) == [.rejoining(Self.given),
                                                           .send(.hello(Hello(name: "Ann", token: Self.given)), sequence: 0)])
        #expect(driver.step(.received(Self.welcome(Self.given), generation: 7)) == [.rejoined])
        #expect(driver.step(.received(.gameStarted(Self.started), generation: 7)) == [])
        #expect(driver.step(.received(.snapshot(Self.snapshot), generation: 7)) == [.deliver(.snapshot(Self.snapshot))])
        // Late reports from replaced connections change nothing.
        #expect(driver.step(.received(.events([.dealFinished]), generation: 1)) == [])
        #expect(driver.step(.lost(generation: 3, reason: "late")) == [])
        #expect(driver.step(.connected(generation: 4)) == [.close(generation: 4)])
        #expect(driver.step(.send(.turn)) == [.send(.turn, sequence: 1)])
        #expect(!driver.link.isFinished)
    }

    @Test("a tampered connection mid-game ends the link with the reason: no redial, the token kept, late reports ignored")
    func tamperedEnds() {
        var driver = Driver()
        driver.seated()
        let reason = "the connection was tampered with: a byte changed on the way, and TLS refused it (BAD_DECRYPT)"
        #expect(driver.step(.tampered(generation: 1, reason: reason), at: .seconds(10))
                    == [.close(generation: 1), .finished(.dropped(reason))])
        #expect(driver.link.isFinished && driver.link.nextDeadline == nil)
        #expect(driver.step(.lost(generation: 1, reason: "closed")) == [])
        // Only the current connection's report counts.
        var later = Driver()
        later.seated()
        #expect(later.step(.tampered(generation: 7, reason: reason)) == [])
        #expect(!later.link.isFinished)
    }

    @Test("redialling stops once the grace period and 5 s have passed; without rejoins, or in the lobby, a drop ends the game")
    func givesUp() {
        var driver = Driver()
        driver.seated()
        _ = driver.step(.lost(generation: 1, reason: "reset"), at: .seconds(100))
        var generation = 2
        var last: [Action] = []
        while driver.now < .seconds(200) {
            last = driver.step(.connectFailed(generation: generation, reason: "refused"), at: driver.now + .seconds(1))
            guard case .connect? = last.first else { break }
            generation += 1
        }
        guard case .finished(.dropped(let why))? = last.last else {
            Issue.record("still redialling: \(last)")
            return
        }
        #expect(why == "reset; could not get back to the table within the grace period")
        #expect(driver.now > .seconds(135) && driver.now <= .seconds(136), "gave up at \(driver.now)")
        #expect(driver.link.isFinished && driver.link.nextDeadline == nil)
        #expect(driver.step(.connectFailed(generation: generation + 1, reason: "late")) == [])

        var once = Driver(rejoins: false)
        once.seated()
        #expect(once.step(.lost(generation: 1, reason: "reset")) == [.close(generation: 1), .finished(.dropped("reset"))])

        var lobby = Driver()
        _ = lobby.step(.start)
        _ = lobby.step(.connected(generation: 1))
        _ = lobby.step(.received(Self.welcome(Self.given), generation: 1))
        #expect(lobby.step(.lost(generation: 1, reason: "reset")) == [.close(generation: 1), .finished(.dropped("reset"))])

        var never = Driver()
        _ = never.step(.start)
        #expect(never.step(.connectFailed(generation: 1, reason: "no host")) == [.finished(.dropped("no host"))])
    }

    @Test("a badToken in the lobby: the kept token is forgotten and the player signs in afresh, once")
    func badTokenInLobby() {
        var driver = Driver(token: Self.kept)
        _ = driver.step(.start)
        #expect(driver.step(.connected(generation: 1)) == [.send(.hello(Hello(name: "Ann", token: Self.kept)), sequence: 0)])
        let refusal = HostMessage.closing(.badToken, message: "that token holds no seat here")
        #expect(driver.step(.received(refusal, generation: 1))
                    == [.forgetToken, .close(generation: 1), .connect(generation: 2, after: .zero, patience: .seconds(1))])
        #expect(driver.link.token == nil)
        #expect(driver.step(.connected(generation: 2)) == [.rejoining(nil), .send(.hello(Hello(name: "Ann")), sequence: 0)])
        #expect(driver.step(.received(Self.welcome(Self.given), generation: 2))
                    == [.keepToken(Self.given), .deliver(Self.welcome(Self.given))])

        // Refused again with no token shown: that is the host's answer, not a stale token.
        var again = Driver(token: Self.kept)
        _ = again.step(.start)
        _ = again.step(.connected(generation: 1))
        _ = again.step(.received(refusal, generation: 1))
        _ = again.step(.connected(generation: 2))
        #expect(again.step(.received(refusal, generation: 2))
                    == [.deliver(refusal), .close(generation: 2), .finished(.refused(.badToken, "that token holds no seat here"))])
    }

    @Test("a host restart: redialled through its downtime; a resumed host welcomes the seat back, a new game refuses the token")
    func hostRestart() {
        func restarted(answer: HostMessage) -> [Action] {
            var driver = Driver()
            driver.seated()
            _ = driver.step(.lost(generation: 1, reason: "the host closed the connection"), at: .seconds(20))
            // The host is down for 4 s: connections are refused.
            var generation = 2
            while driver.now < .seconds(24) {
                let actions = driver.step(.connectFailed(generation: generation, reason: "refused"), at: driver.now + .milliseconds(500))
                #expect(actions.count == 1)
                generation += 1
            }
            #expect(driver.step(.connected(generation: generation)).last
                        == .send(.hello(Hello(name: "Ann", token: Self.given)), sequence: 0))
            return driver.step(.received(answer, generation: generation))
        }
        // snapcards host --resume: the same seat, the same token.
        #expect(restarted(answer: Self.welcome(Self.given)) == [.rejoined])
        // A fresh host: the token holds no seat; the game this seat was in is over.
        let refusal = HostMessage.closing(.badToken, message: "no such seat")
        let actions = restarted(answer: refusal)
        #expect(actions.first == .forgetToken)
        #expect(actions.contains(.deliver(refusal)))
        #expect(actions.last == .finished(.refused(.badToken, "no such seat")))
        #expect(!actions.contains { if case .connect = $0 { true } else { false } })
    }

    @Test("a burst of pings after a stall: each answered once, in order; a late watchdog looks again instead of cutting")
    func pingBurstAfterStall() {
        var driver = Driver()
        _ = driver.step(.start)
        _ = driver.step(.connected(generation: 1))
        _ = driver.step(.received(Self.welcome(Self.given), generation: 1), at: .milliseconds(100))
        #expect(driver.link.nextDeadline == .milliseconds(5100))
        // This process stalled for 3 s: the watchdog fires late, while the host's pings wait unread.
        #expect(driver.step(.timerFired, at: .seconds(8)) == [])
        #expect(driver.link.nextDeadline == .milliseconds(8250))
        let nonces: [UInt64] = [11, 22, 33, 44, 55, 66, 77, 88]
        var answers: [Action] = []
        for nonce in nonces {
            answers += driver.step(.received(.ping(nonce: nonce), generation: 1))
        }
        #expect(answers == zip(nonces, UInt32(1)...).map { Action.send(.pong(nonce: $0), sequence: $1) })
        #expect(driver.link.nextDeadline == .seconds(13))
        // Only the link answers pings and signs in: a client's own pong or hello never goes out.
        #expect(driver.step(.send(.pong(nonce: 11))) == [])
        #expect(driver.step(.send(.hello(Hello(name: "Ann")))) == [])
        #expect(driver.step(.timerFired, at: .seconds(12)) == [], "not due yet")
        // Then the host really goes quiet: the watchdog, on time, cuts.
        let cut = driver.step(.timerFired, at: .seconds(13))
        #expect(cut == [.close(generation: 1), .finished(.dropped("nothing heard from the host for \(Duration.seconds(5))"))])

        // A stall with nothing waiting: the second look cuts.
        var quiet = Driver()
        _ = quiet.step(.start)
        _ = quiet.step(.connected(generation: 1))
        #expect(quiet.step(.timerFired, at: .seconds(9)) == [])
        #expect(quiet.step(.timerFired, at: .milliseconds(9250)).last
                    == .finished(.dropped("nothing heard from the host for \(Duration.seconds(5))")))
    }
}
