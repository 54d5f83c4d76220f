import Testing
@testable import SnapEngine

@Suite("Matches")
struct MatchTests {
    func tops(_ pairs: [(Seat, String)]) -> [Seat] {
        matchingSeats(topCards: pairs.map { ($0.0, card($0.1)) })
    }

    @Test("two equal ranks match, whatever the suits")
    func pair() {
        #expect(tops([(.bottom, "7C"), (.left, "7H"), (.top, "2S")]) == [.bottom, .left])
    }

    @Test("no equal ranks: no match")
    func none() {
        #expect(tops([(.bottom, "7C"), (.left, "8H"), (.top, "9S"), (.right, "10D")]).isEmpty)
        #expect(tops([(.bottom, "7C")]).isEmpty)
    }

    @Test("three and four of a rank are one match with everyone showing it")
    func threeAndFour() {
        #expect(tops([(.bottom, "7C"), (.left, "7H"), (.top, "7S"), (.right, "2D")]) == [.bottom, .left, .top])
        #expect(tops([(.bottom, "QC"), (.left, "QH"), (.top, "QS"), (.right, "QD")]) == Seat.allCases)
    }

    @Test("two pairs are one match with all four players")
    func twoPairs() {
        #expect(tops([(.bottom, "7C"), (.left, "KH"), (.top, "7S"), (.right, "KD")]) == Seat.allCases)
    }

    @Test("only the top open card counts")
    func onlyTop() {
        let game = Game.arranged(closed: [.bottom: [], .top: []], open: [.bottom: cards("5C 7C"), .top: cards("7H 5H")],
                                 active: .bottom, hasTurned: true, rest: .bottom)
        #expect(game.matching.isEmpty)
    }
}
