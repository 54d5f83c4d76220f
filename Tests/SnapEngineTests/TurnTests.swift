import Testing
@testable import SnapEngine

@Suite("Turns and the next player")
struct TurnTests {
    @Test("the active player turns the top closed card onto the open pile, once")
    func turnOnce() throws {
        var game = Game.arranged(closed: [.bottom: cards("3C 4C"), .top: cards("5C")], active: .bottom, rest: .top)
        let events = try game.apply(.turn(.bottom))
        #expect(events == [.turned(.bottom, card("4C"))])
        #expect(game.hand(.bottom).closed == cards("3C"))
        #expect(game.hand(.bottom).open == cards("4C"))
        let before = game
        #expect(throws: GameError.alreadyTurned) { try game.apply(.turn(.bottom)) }
        #expect(game == before)
    }

    @Test("only the active player may turn")
    func notYourTurn() {
        var game = Game.arranged(closed: [.bottom: cards("3C"), .top: cards("5C")], active: .bottom, rest: .top)
        let before = game
        #expect(throws: GameError.notYourTurn(active: .bottom)) { try game.apply(.turn(.top)) }
        #expect(throws: GameError.notYourTurn(active: .bottom)) { try game.apply(.turn(.left)) }
        #expect(game == before)
    }

    @Test("activateNext needs a turn first, then goes clockwise")
    func clockwise() throws {
        var game = Game.arranged(closed: [.bottom: cards("3C"), .left: cards("4C"), .top: cards("5C"), .right: cards("6C")],
                                 active: .right, rest: .bottom)
        #expect(throws: GameError.noTurnYet) { try game.apply(.activateNext) }
        game.must(.turn(.right))
        #expect(try game.apply(.activateNext) == [.activated(.bottom)])
        game.must(.turn(.bottom))
        #expect(try game.apply(.activateNext) == [.activated(.left)])
    }

    @Test("skips a player with no cards, and one with no closed cards and a single open card")
    func skips() throws {
        var game = Game.arranged(closed: [.bottom: cards("3C"), .left: [], .top: [], .right: cards("6C")],
                                 open: [.top: cards("9H")], active: .bottom, hasTurned: true, rest: .right)
        #expect(try game.apply(.activateNext) == [.activated(.right)])
    }

    @Test("a player with no closed cards and two or more open cards recycles, then plays")
    func recycleBeforeTurn() throws {
        var game = Game.arranged(closed: [.bottom: cards("3C"), .top: []], open: [.top: cards("9H 10H JH")],
                                 active: .bottom, hasTurned: true, rest: .bottom)
        let events = try game.apply(.activateNext)
        #expect(events == [.recycled(.top, count: 3), .activated(.top)])
        // The card that was at the bottom of the open pile comes up first again.
        #expect(game.hand(.top).closed == cards("JH 10H 9H"))
        #expect(game.hand(.top).open.isEmpty)
        #expect(try game.apply(.turn(.top)) == [.turned(.top, card("9H"))])
    }

    @Test("when nobody else can play, the turn comes back to the same player")
    func backToSelf() throws {
        var game = Game.arranged(closed: [.bottom: cards("3C 4C"), .top: []], open: [.top: cards("9H")],
                                 active: .bottom, hasTurned: true, rest: .bottom)
        #expect(try game.apply(.activateNext) == [.activated(.bottom)])
    }

    @Test("the turn limit option ends a long round: most cards wins, ties to the first clockwise from the starter")
    func turnLimit() throws {
        var game = Game.arranged(closed: [.bottom: cards("3C"), .top: cards("4C")], active: .bottom, rest: .top,
                                 rules: Rules(turnLimit: 1))
        game.must(.turn(.bottom))
        let events = try game.apply(.activateNext)
        #expect(events == [.turnLimitReached, .roundWon(.top, wins: 1)])
        #expect(game.phase == .roundOver(winner: .top))

        var even = Game.arranged(closed: [.bottom: Array(Card.fullDeck[0..<26]), .top: Array(Card.fullDeck[26...])],
                                 active: .top, rules: Rules(turnLimit: 1))
        even.startingSeat = .top
        even.must(.turn(.top))
        #expect(even.must(.activateNext).last == .roundWon(.top, wins: 1))
    }
}
