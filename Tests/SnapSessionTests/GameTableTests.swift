import SnapBots
import SnapEngine
import SnapProtocol
import Testing
@testable import SnapSession

/// The table alone: commands in, events and timers out, the turn timer and the computers
/// that play seats, with no connection and no match log.
@Suite("GameTable: the game, its pacing and the turn timer")
struct GameTableTests {
    static func table(_ change: (inout HostConfiguration) -> Void = { _ in }) -> GameTable {
        var configuration = HostConfiguration(hostName: "Host")
        configuration.secretDeals = false
        configuration.seed = 5
        change(&configuration)
        return GameTable(configuration)
    }

    /// Applies a command the table must accept; returns its events after the table saw them.
    static func apply(_ table: inout GameTable, _ command: Command, now: Duration) -> [Event] {
        guard case .applied(let events, nil) = table.apply(command) else {
            Issue.record("\(command) was not applied")
            return []
        }
        for event in events { _ = table.observe(event, now: now) }
        table.computersObserve(events.map(\.seen), now: now)
        return events
    }

    /// A two-seat table dealt and playing: the owner at the bottom, a computer at the top.
    static func playing(_ change: (inout HostConfiguration) -> Void = { _ in }) -> GameTable {
        var table = Self.table(change)
        table.start(seats: [.bottom, .top], computers: [false, true])
        let deal = table.nextDeal()!
        _ = Self.apply(&table, .deal(seed: deal.seed), now: .zero)
        _ = Self.apply(&table, .finishDeal, now: .seconds(6))
        return table
    }

    @Test("no game, no command; a refused one changes nothing; an applied one is counted")
    func commands() {
        var table = Self.table()
        let noGame = table.apply(.finishDeal)
        #expect(noGame == nil)
        table.start(seats: [.bottom, .top], computers: [false, true])
        guard case .refused = table.apply(.finishDeal) else { Issue.record("dealing before a deal"); return }
        #expect(table.commandsApplied == 0)
        let deal = table.nextDeal()
        #expect(deal?.secret == DealReveal.derived(match: 5, round: 1))
        let secret = table.takeDealSecret()
        #expect(secret == deal?.secret)
        let again = table.takeDealSecret()
        #expect(again == nil)  // revealed once
        _ = Self.apply(&table, .deal(seed: deal!.seed), now: .zero)
        #expect(table.commandsApplied == 1 && table.invariantViolation == nil)
    }

    @Test("pacing: the deal's animation, then the pause before the next player, scaled by the speed")
    func pacing() {
        var table = Self.table { $0.speed = 0.5 }
        table.start(seats: [.bottom, .top], computers: [true, true])
        #expect(table.seats.allSatisfy { $0.computer != nil })
        _ = Self.apply(&table, .deal(seed: table.nextDeal()!.seed), now: .seconds(1))
        #expect(table.timers == [.finishDeal: .seconds(1) + Pacing.original.deal * 0.5])
        table.clear(.finishDeal)  // as the session does when a timer fires
        _ = Self.apply(&table, .finishDeal, now: .seconds(5))
        #expect(table.timers[.turnTimeout] == nil)  // computers need no turn timer
        let active = table.game!.table.active!
        let events = Self.apply(&table, .turn(active), now: .seconds(6))
        #expect(events.contains { if case .turned = $0 { true } else { false } })
        #expect(table.timers[.activateNext] == .seconds(6) + .milliseconds(250))
        var due: [HostTimer] = []
        table.due(at: .seconds(7), into: &due)
        #expect(due == [.activateNext])
        #expect(table.nextDeadline! <= .seconds(6) + .milliseconds(250))  // or a computer wakes sooner
    }

    @Test("the turn timer: armed for the owner's turn; each miss counted; after three a computer stands in until the owner acts")
    func turnTimer() {
        var table = Self.playing { $0.turnTimeout = .seconds(2) }
        // Play until it is the owner's (bottom's) turn.
        var now = Duration.seconds(6)
        for _ in 0..<3 {
            guard table.game!.table.active != .bottom else { break }
            _ = Self.apply(&table, .turn(.top), now: now)
            now += .seconds(1)
            _ = Self.apply(&table, .activateNext, now: now)
        }
        #expect(table.game!.table.active == .bottom)
        #expect(table.timers[.turnTimeout] == now + .seconds(2))
        #expect(table.awaitsTurn(from: .bottom) && !table.awaitsTurn(from: .top))
        for missed in 1...3 {
            guard let miss = table.missTurn() else { Issue.record("no turn to take"); return }
            #expect(miss.seat == .bottom && miss.missed == missed)
            _ = Self.apply(&table, .turn(.bottom), now: now)
            let none = table.missTurn()
            #expect(none == nil)  // turned: nothing more to take
            let standsIn = table.standIn(at: .bottom, now: now)
            #expect(standsIn == (missed == 3))
            now += .seconds(1)
            _ = Self.apply(&table, .activateNext, now: now)
            if table.game!.table.active == .top {
                _ = Self.apply(&table, .turn(.top), now: now)
                now += .seconds(1)
                _ = Self.apply(&table, .activateNext, now: now)
            }
        }
        #expect(table.seats[0].computer != nil)
        #expect(table.timers[.turnTimeout] == nil)  // a computer plays the seat: no timer
        let back = table.ownerTakesBack(.bottom, now: now)
        #expect(back)
        #expect(table.seats[0].computer == nil && table.seats[0].missedTurns == 0)
        #expect(table.timers[.turnTimeout] == now + .seconds(2))  // their turn again: a fresh timer
        let twice = table.ownerTakesBack(.bottom, now: now)
        #expect(!twice)
    }

    @Test("a won round is counted; with every round played the match is over and no next round is set")
    func roundsWon() {
        var table = Self.table { $0.rounds = 2; $0.autoNextRound = .seconds(3) }
        table.start(seats: [.bottom, .top], computers: [false, false])
        let first = table.observe(.roundWon(.top, wins: 1), now: .seconds(10))
        #expect(first == GameTable.RoundEnd(winner: .top, round: 0, matchOver: false))
        #expect(table.timers[.nextRound] == .seconds(13))
        let second = table.observe(.roundWon(.bottom, wins: 1), now: .seconds(20))
        #expect(second?.matchOver == true)
        #expect(table.roundsWon == 2)
        table.stop()
        #expect(table.timers.isEmpty)
    }
}
