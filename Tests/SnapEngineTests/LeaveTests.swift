import Testing
@testable import SnapEngine

@Suite("Leaving mid-round")
struct LeaveTests {
    @Test("a leaver's cards are handed out one at a time as the original did: the open pile from its top down, then the closed pile from its top down, clockwise to players with cards, under their closed piles")
    func handOut() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C"), .left: cards("3C 4C 5C"), .top: [], .right: cards("6C")],
            open: [.left: cards("8H 9H")], active: .bottom, rest: .bottom)
        let events = try game.apply(.leave(.left))
        // Piles are written bottom first: 9H tops the open pile, 5C the closed one. Top has
        // no cards, so the rotation from the leaver is right, bottom, right, …
        #expect(events == [
            .playerLeft(.left),
            .handedOut(card("9H"), from: .left, pile: .open, to: .right),
            .handedOut(card("8H"), from: .left, pile: .open, to: .bottom),
            .handedOut(card("5C"), from: .left, pile: .closed, to: .right),
            .handedOut(card("4C"), from: .left, pile: .closed, to: .bottom),
            .handedOut(card("3C"), from: .left, pile: .closed, to: .right),
        ])
        #expect(game.hand(.right).closed == cards("3C 5C 9H 6C"))
        #expect(Array(game.hand(.bottom).closed.prefix(2)) == cards("4C 8H"))  // under the rest of the deck
        #expect(!game.hand(.left).hasCards)
        #expect(!game.hand(.left).isPresent)
        #expect(game.active == .bottom)
        #expect(throws: GameError.notSeated(.left)) { try game.apply(.leave(.left)) }
        #expect(throws: GameError.notSeated(.left)) { try game.apply(.snap(.left)) }
    }

    @Test("an active leaver: the next player is activated")
    func activeLeaver() throws {
        var game = Game.arranged(closed: [.bottom: cards("2C"), .left: cards("3C"), .top: cards("4C")],
                                 active: .left, rest: .bottom)
        let events = try game.apply(.leave(.left))
        #expect(events.last == .activated(.top))
        #expect(game.active == .top)
    }

    @Test("a leaver whose cards all go to the single remaining player: that player wins the round")
    func singleReceiverWins() throws {
        var game = Game.arranged(closed: [.bottom: cards("2C 3C"), .left: [], .top: cards("4C")],
                                 open: [.bottom: cards("5C")], active: .bottom, rest: .bottom)
        let events = try game.apply(.leave(.bottom))
        #expect(events.filter { if case .handedOut(_, _, _, .top) = $0 { true } else { false } }.count == 51)
        #expect(events.last == .roundWon(.top, wins: 1))
        #expect(game.hand(.top).cardCount == 52)
        // Left was only out of that round: left and top play the next one.
        #expect(game.presentSeats == [.left, .top])
        game.must(.deal(seed: 1))
        #expect(game.hand(.left).closed.count == 26)
    }

    @Test("the player who was out gets nothing")
    func outPlayerGetsNothing() throws {
        var game = Game.arranged(closed: [.bottom: cards("2C"), .left: [], .top: cards("4C"), .right: cards("6C")],
                                 active: .top, rest: .top)
        game.must(.leave(.right))
        #expect(!game.hand(.left).hasCards)
        #expect(game.invariantViolation() == nil)
    }

    @Test("leaving between rounds moves nothing; the next deal leaves the seat out")
    func leaveBetweenRounds() throws {
        var game = Game(seats: [.bottom, .left, .top])
        #expect(try game.apply(.leave(.left)) == [.playerLeft(.left)])
        game.must(.deal(seed: 2))
        #expect(game.hand(.left).closed.isEmpty)
        #expect(game.hand(.bottom).closed.count == 26)
    }

    @Test("leaving while the cards are dealt hands them out too")
    func leaveWhileDealing() throws {
        var game = Game(seats: [.bottom, .left, .top])
        game.must(.deal(seed: 2))
        game.must(.leave(.top))
        #expect(game.hand(.top).closed.isEmpty)
        #expect(game.hand(.bottom).cardCount + game.hand(.left).cardCount == 52)
        game.must(.finishDeal)
        #expect(game.active != .top)
    }
}
