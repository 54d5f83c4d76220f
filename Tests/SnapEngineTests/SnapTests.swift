import Testing
@testable import SnapEngine

@Suite("Snap! calls")
struct SnapTests {
    @Test("correct: the caller takes the matching open piles, turned over, under its closed pile")
    func correctByMatchingCaller() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C"), .left: cards("3C"), .top: cards("4C")],
            open: [.bottom: cards("9C 7C"), .left: cards("KD 7H"), .top: cards("8S")],
            active: .left, hasTurned: true, rest: .top)
        let events = try game.apply(.snap(.bottom))
        #expect(events == [
            .snapCalled(.bottom),
            .snapCorrect(caller: .bottom, matching: [.bottom, .left]),
            .collected(cards: cards("9C 7C"), from: .bottom, to: .bottom),
            .collected(cards: cards("KD 7H"), from: .left, to: .bottom),
        ])
        // Left's pile went in last, so it is at the very bottom: 7H, KD, then 7C, 9C, then 2C.
        #expect(game.hand(.bottom).closed == cards("7H KD 7C 9C 2C"))
        #expect(game.hand(.bottom).open.isEmpty)
        #expect(game.hand(.left).open.isEmpty)
        #expect(game.hand(.top).open == cards("8S"))
        #expect(game.snapJudged)
    }

    @Test("correct: a caller who is not in the match takes the piles too")
    func correctByOutsider() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C"), .left: cards("3C"), .top: cards("4C")],
            open: [.bottom: cards("9C"), .left: cards("7H"), .top: cards("7S")],
            active: .top, hasTurned: true, rest: .left)
        let events = try game.apply(.snap(.bottom))
        #expect(events == [
            .snapCalled(.bottom),
            .snapCorrect(caller: .bottom, matching: [.left, .top]),
            .collected(cards: cards("7H"), from: .left, to: .bottom),
            .collected(cards: cards("7S"), from: .top, to: .bottom),
        ])
        #expect(game.hand(.bottom).closed == cards("7S 7H 2C"))
        #expect(game.hand(.bottom).open == cards("9C"))
    }

    @Test("correct: four of a kind, every pile to the caller; piles taken clockwise from the caller")
    func fourOfAKind() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C"), .left: cards("3C"), .top: cards("4C"), .right: cards("5C")],
            open: [.bottom: cards("QC"), .left: cards("QH"), .top: cards("QS"), .right: cards("QD")],
            active: .bottom, hasTurned: true, rest: .right)
        let events = try game.apply(.snap(.top))
        #expect(events == [
            .snapCalled(.top),
            .snapCorrect(caller: .top, matching: Seat.allCases),
            .collected(cards: cards("QS"), from: .top, to: .top),
            .collected(cards: cards("QD"), from: .right, to: .top),
            .collected(cards: cards("QC"), from: .bottom, to: .top),
            .collected(cards: cards("QH"), from: .left, to: .top),
        ])
        #expect(game.hand(.top).closed == cards("QH QC QD QS 4C"))
        for seat in Seat.allCases { #expect(game.hand(seat).open.isEmpty) }
    }

    @Test("correct: a matching player with no closed cards is out once the pile is taken")
    func collectedPlayerIsOut() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C"), .left: [], .top: cards("4C")],
            open: [.bottom: cards("7C"), .left: cards("7H")],
            active: .top, rest: .top)
        let events = try game.apply(.snap(.top))
        #expect(events.suffix(2) == [.collected(cards: cards("7H"), from: .left, to: .top), .playerOut(.left)])
        #expect(throws: GameError.noCards(.left)) { try game.apply(.snap(.left)) }
    }

    @Test("wrong: the caller pays one card to each other player with cards, clockwise, onto the bottom")
    func wrongPays() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C"), .left: cards("3C"), .top: cards("4C 5C 6C 7C"), .right: cards("8C")],
            open: [.bottom: cards("9D"), .left: cards("10D"), .top: cards("JD"), .right: cards("QD")],
            active: .bottom, hasTurned: true, rest: .right)
        let events = try game.apply(.snap(.top))
        #expect(events == [
            .snapCalled(.top), .snapWrong(caller: .top),
            .paid(card("7C"), from: .top, to: .right),
            .paid(card("6C"), from: .top, to: .bottom),
            .paid(card("5C"), from: .top, to: .left),
        ])
        #expect(game.hand(.top).closed == cards("4C"))
        #expect(game.hand(.bottom).closed == cards("6C 2C"))
        #expect(game.hand(.left).closed == cards("5C 3C"))
        #expect(game.hand(.right).closed.first == card("7C"))
    }

    @Test("wrong: players who are out are never paid")
    func outPlayersNotPaid() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C 3C"), .left: [], .top: cards("4C")],
            open: [.top: cards("5D")],
            active: .top, hasTurned: true, rest: .top)
        let events = try game.apply(.snap(.bottom))
        #expect(events == [.snapCalled(.bottom), .snapWrong(caller: .bottom), .paid(card("3C"), from: .bottom, to: .top)])
        #expect(!game.hand(.left).hasCards)
    }

    @Test("wrong: a caller with too few closed cards recycles first, then pays")
    func recycleBeforePaying() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C"), .left: cards("3C"), .top: cards("4C"), .right: cards("5C")],
            open: [.bottom: cards("9D 8D"), .left: cards("10D"), .top: cards("JD"), .right: cards("QD")],
            active: .left, hasTurned: true, rest: .right)
        let events = try game.apply(.snap(.bottom))
        #expect(events == [
            .snapCalled(.bottom), .snapWrong(caller: .bottom),
            .recycled(.bottom, count: 2),
            .paid(card("2C"), from: .bottom, to: .left),
            .paid(card("9D"), from: .bottom, to: .top),
            .paid(card("8D"), from: .bottom, to: .right),
            .playerOut(.bottom),
        ])
        #expect(!game.hand(.bottom).hasCards)
    }

    @Test("wrong: a caller who cannot pay everyone pays whom it can")
    func partialPayment() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C"), .left: cards("3C"), .top: cards("4C"), .right: cards("5C")],
            open: [.left: cards("10D"), .top: cards("JD"), .right: cards("QD")],
            active: .left, hasTurned: true, rest: .right)
        let events = try game.apply(.snap(.bottom))
        #expect(events == [
            .snapCalled(.bottom), .snapWrong(caller: .bottom),
            .paid(card("2C"), from: .bottom, to: .left),
            .playerOut(.bottom),
        ])
        #expect(game.hand(.top).closed == cards("4C"))
    }

    @Test("wrong: paying the last card to the only other player with cards ends the round")
    func payingLastCardEndsRound() throws {
        var game = Game.arranged(closed: [.bottom: cards("2C"), .top: []], open: [.top: cards("5D")],
                                 active: .top, hasTurned: true, rest: .top)
        let events = try game.apply(.snap(.bottom))
        #expect(events.suffix(2) == [.playerOut(.bottom), .roundWon(.top, wins: 1)])
    }

    @Test("too late: the second call since the last turn moves nothing")
    func tooLate() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C"), .top: cards("4C 6C")], open: [.bottom: cards("7C"), .top: cards("7H")],
            active: .bottom, hasTurned: true, rest: .top)
        game.must(.snap(.top))
        let judged = game
        #expect(try game.apply(.snap(.bottom)) == [.snapCalled(.bottom), .snapTooLate(.bottom)])
        #expect(try game.apply(.snap(.top)) == [.snapCalled(.top), .snapTooLate(.top)])
        #expect(game == judged)
        // The next turned card opens judging again.
        game.must(.activateNext)
        game.must(.turn(.top))
        #expect(try game.apply(.snap(.bottom)).contains(.snapWrong(caller: .bottom)))
    }

    @Test("a player with no cards cannot call; a player who left cannot call")
    func outCannotCall() {
        var game = Game.arranged(closed: [.bottom: cards("2C"), .left: [], .top: cards("4C")],
                                 active: .bottom, rest: .top)
        let before = game
        #expect(throws: GameError.noCards(.left)) { try game.apply(.snap(.left)) }
        #expect(throws: GameError.notSeated(.right)) { try game.apply(.snap(.right)) }
        #expect(game == before)
    }

    @Test("before any card is turned, a call is wrong")
    func callBeforeFirstTurn() throws {
        var game = Game.started(seats: [.bottom, .top], seed: 11)
        #expect(try game.apply(.snap(.top)).contains(.snapWrong(caller: .top)))
    }

    @Test("the active player who pays away its closed pile before turning recycles or passes the turn")
    func activePlayerKeepsAPlayableTurn() throws {
        var game = Game.arranged(closed: [.bottom: cards("2C"), .left: cards("3C"), .top: cards("4C")],
                                 open: [.bottom: cards("9D 8D")], active: .bottom, rest: .top)
        let events = try game.apply(.snap(.bottom))
        // Pays 2C to left, recycles (9D comes up first), pays 9D to top: 8D is left to turn.
        #expect(events.contains(.recycled(.bottom, count: 2)))
        #expect(game.active == .bottom)
        #expect(game.hand(.bottom).closed == cards("8D"))

        var broke = Game.arranged(closed: [.bottom: cards("2C"), .left: cards("3C"), .top: cards("4C")],
                                  active: .bottom, rest: .top)
        let brokeEvents = try broke.apply(.snap(.bottom))
        #expect(brokeEvents.suffix(2) == [.playerOut(.bottom), .activated(.left)])
        #expect(broke.invariantViolation() == nil)
    }
}
