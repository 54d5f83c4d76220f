import Testing
@testable import SnapEngine

@Suite("Dealing and starting players")
struct DealTests {
    @Test("four players get 13 cards each, dealt one at a time clockwise from the starting player")
    func fourPlayers() throws {
        var game = Game(seats: Seat.allCases)
        let events = try game.apply(.deal(seed: 42))
        guard case .roundStarted(round: 1, let start) = events.first else {
            Issue.record("no roundStarted first: \(events)"); return
        }
        let dealtTo = events.compactMap { event -> Seat? in
            if case .dealt(_, let to) = event { return to } else { return nil }
        }
        #expect(dealtTo.count == 52)
        #expect(Array(dealtTo.prefix(4)) == start.clockwiseFromHere)
        for (index, seat) in dealtTo.enumerated() {
            #expect(seat == start.clockwiseFromHere[index % 4])
        }
        for seat in Seat.allCases {
            #expect(game.hand(seat).closed.count == 13)
            #expect(game.hand(seat).open.isEmpty)
        }
        #expect(game.phase == .dealing)
        #expect(game.deck.isEmpty)
        #expect(game.active == nil)
    }

    @Test("three players: uneven piles, the starting player gets the extra card")
    func threePlayersUneven() {
        var game = Game(seats: [.bottom, .left, .top])
        game.must(.deal(seed: 7))
        let start = game.startingSeat!
        let order = [Seat.bottom, .left, .top].clockwise(from: start)
        #expect(game.hand(order[0]).closed.count == 18)
        #expect(game.hand(order[1]).closed.count == 17)
        #expect(game.hand(order[2]).closed.count == 17)
        #expect(game.hand(.right).closed.isEmpty)
    }

    @Test("the dealt card lands on top of the closed pile")
    func dealtCardsStack() {
        var game = Game(seats: [.bottom, .top])
        let events = game.must(.deal(seed: 3))
        var last: [Seat: Card] = [:]
        for case .dealt(let card, let to) in events { last[to] = card }
        #expect(game.hand(.bottom).closed.last == last[.bottom])
        #expect(game.hand(.top).closed.last == last[.top])
    }

    @Test("nothing is turned or snapped while dealing; finishDeal activates the starting player")
    func dealingPhase() throws {
        var game = Game(seats: [.bottom, .top])
        game.must(.deal(seed: 9))
        let start = game.startingSeat!
        let before = game
        #expect(throws: GameError.stillDealing) { try game.apply(.turn(start)) }
        #expect(throws: GameError.stillDealing) { try game.apply(.snap(start)) }
        #expect(throws: GameError.stillDealing) { try game.apply(.activateNext) }
        #expect(throws: GameError.roundInProgress) { try game.apply(.deal(seed: 9)) }
        #expect(game == before)
        let events = try game.apply(.finishDeal)
        #expect(events == [.dealFinished, .activated(start)])
        #expect(game.phase == .playing)
        #expect(throws: GameError.notDealing) { try game.apply(.finishDeal) }
    }

    @Test("the first starting player is random: every seat starts for some seed")
    func randomFirstStart() {
        var starts = Set<Seat>()
        for seed in 0..<64 as Range<UInt64> {
            var game = Game(seats: Seat.allCases)
            game.must(.deal(seed: seed))
            starts.insert(game.startingSeat!)
        }
        #expect(starts == Set(Seat.allCases))
    }

    @Test("each later round starts with the next occupied seat clockwise")
    func rotatingStart() throws {
        var game = Game.arranged(closed: [.left: cards("AS"), .right: []], active: .left, rest: .left,
                                 seats: [.left, .right])
        game.phase = .roundOver(winner: .left)
        game.startingSeat = .left
        game.must(.deal(seed: 1))
        #expect(game.startingSeat == .right)
        game.phase = .roundOver(winner: .left)
        game.must(.deal(seed: 1))
        #expect(game.startingSeat == .left)
        #expect(game.round == 3)
    }

    @Test("a deal needs two players")
    func needsTwo() {
        var game = Game(seats: [.bottom])
        #expect(throws: GameError.notEnoughPlayers) { try game.apply(.deal(seed: 1)) }
        var two = Game(seats: [.bottom, .top])
        two.must(.leave(.top))
        #expect(throws: GameError.notEnoughPlayers) { try two.apply(.deal(seed: 1)) }
    }

    @Test("the same seed deals the same cards; another seed deals others")
    func seededDeal() {
        func deal(_ seed: UInt64) -> [Event] {
            var game = Game(seats: Seat.allCases)
            return game.must(.deal(seed: seed))
        }
        #expect(deal(5) == deal(5))
        #expect(deal(5) != deal(6))
    }

    @Test("the next round gathers every card and deals all 52 again; wins are kept")
    func nextRound() throws {
        // Bottom snaps the pair of twos and then holds everything.
        var game = Game.arranged(closed: [.top: []], open: [.bottom: cards("2D"), .top: cards("2H")], active: .bottom,
                             hasTurned: true, rest: .bottom, wins: [.bottom: 2])
        let events = game.must(.snap(.bottom))
        #expect(events.last == .roundWon(.bottom, wins: 3))
        #expect(game.phase == .roundOver(winner: .bottom))
        #expect(throws: GameError.notPlaying) { try game.apply(.snap(.bottom)) }
        game.must(.deal(seed: 1))
        #expect(game.hand(.bottom).closed.count == 26)
        #expect(game.hand(.top).closed.count == 26)
        #expect(game.hand(.bottom).wins == 3)
        #expect(game.invariantViolation() == nil)
    }
}
