import Testing
@testable import SnapEngine

/// A player whose connection dropped is away: skipped, cards kept, until they return
/// (or leave when the grace period ends).
@Suite("Away and back")
struct AbsenceTests {
    func cards(_ text: String) -> [Card] { text.split(separator: " ").map { card(String($0)) } }

    @Test("an away player's turn passes on; they keep their cards and are skipped until they return")
    func skipped() throws {
        var game = Game.arranged(
            closed: [.bottom: cards("2C 3C"), .left: cards("4C 5C"), .top: cards("6C 7C")],
            active: .left, rest: .top)
        let total = game.hand(.left).cardCount
        #expect(try game.apply(.absent(.left)) == [.absent(.left), .activated(.top)])
        #expect(game.hand(.left).cardCount == total)
        #expect(try game.apply(.turn(.top)).count == 1)
        #expect(try game.apply(.activateNext) == [.activated(.bottom)])
        _ = try game.apply(.turn(.bottom))
        #expect(try game.apply(.activateNext) == [.activated(.top)])  // left is skipped
        #expect(throws: GameError.notYourTurn(active: .top)) { try game.apply(.turn(.left)) }
        #expect(try game.apply(.returned(.left)) == [.returned(.left)])  // someone is active: no activation
        _ = try game.apply(.turn(.top))
        #expect(try game.apply(.activateNext) == [.activated(.bottom)])
        _ = try game.apply(.turn(.bottom))
        #expect(try game.apply(.activateNext) == [.activated(.left)])
        #expect(game.invariantViolation() == nil)
    }

    @Test("an away player who already turned keeps the card down; the turn moves on as usual")
    func awayAfterTurning() throws {
        var game = Game.arranged(closed: [.bottom: cards("2C 3C"), .top: cards("6C 7C")], active: .bottom)
        _ = try game.apply(.turn(.bottom))
        #expect(try game.apply(.absent(.bottom)) == [.absent(.bottom)])
        #expect(try game.apply(.activateNext) == [.activated(.top)])
    }

    @Test("when everyone who could play is away the game waits; the first to return plays")
    func everyoneAway() throws {
        var game = Game.arranged(closed: [.bottom: cards("2C 3C"), .top: cards("6C 7C")], active: .bottom)
        _ = try game.apply(.absent(.top))
        #expect(try game.apply(.absent(.bottom)) == [.absent(.bottom), .waiting])
        #expect(game.active == nil)
        #expect(throws: GameError.self) { try game.apply(.activateNext) }
        #expect(try game.apply(.returned(.top)) == [.returned(.top), .activated(.top)])
        #expect(game.invariantViolation() == nil)
    }

    @Test("an away player can be paid and can leave; twice away or back without being away is refused")
    func refusals() throws {
        var game = Game.arranged(closed: [.bottom: cards("2C 3C"), .top: cards("6C 7C")], active: .bottom)
        _ = try game.apply(.absent(.top))
        #expect(throws: GameError.alreadyAbsent(.top)) { try game.apply(.absent(.top)) }
        #expect(throws: GameError.notAbsent(.bottom)) { try game.apply(.returned(.bottom)) }
        let events = try game.apply(.snap(.bottom))  // wrong: pays the away player too
        #expect(events.contains(.paid(card("3C"), from: .bottom, to: .top)))
        let left = try game.apply(.leave(.top))
        #expect(left.first == .playerLeft(.top))
        #expect(left.last == .roundWon(.bottom, wins: 1))
    }
}
