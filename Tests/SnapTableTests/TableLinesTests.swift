import SnapEngine
@testable import SnapTable
import Testing

@Suite("The table's lines")
struct TableLinesTests {
    /// The table before each batch: these lines need nothing on it.
    static let table = TableView(seats: [.bottom, .top])

    static func model() -> TableModel {
        let model = TableModel()
        model.start(seats: [.bottom, .top], mySeat: .bottom, names: [.bottom: "Ann", .top: "Ray"])
        return model
    }

    @Test("a Snap! that came too late says so for a moment to the caller, and to the others; whose turn it is stays")
    func tooLate() {
        let mine = Self.model()
        mine.schedule([.activated(.top)], from: Self.table, now: 1)
        mine.schedule([.snapTooLate(.bottom)], from: Self.table, now: 2)
        mine.advance(to: 2, play: { _ in })
        #expect(mine.visual.notice == TableVisual.Notice(text: "Too late!", tone: .bad, until: 2 + TableModel.noticeDuration))
        #expect(mine.visual.status == "Ray's turn")
        #expect(mine.effects.contains { $0.kind == .bubble && $0.seat == .bottom })
        let theirs = Self.model()
        theirs.schedule([.snapTooLate(.top)], from: Self.table, now: 1)
        theirs.advance(to: 1, play: { _ in })
        #expect(theirs.visual.notice?.text == "Ray was too late")
    }

    @Test("a right call says who takes how many cards, as each screen sees it")
    func snapCorrect() {
        let cards = [Card(.seven, .hearts), Card(.two, .clubs), Card(.seven, .spades)]
        let events: [SeatEvent] = [.snapCalled(.top), .snapCorrect(caller: .top, matching: [.bottom, .top]),
                                   .collected(cards: Array(cards.prefix(2)), from: .bottom, to: .top),
                                   .collected(cards: [cards[2]], from: .top, to: .top)]
        let theirs = Self.model()
        theirs.schedule(events, from: Self.table, now: 1)
        theirs.advance(to: 1, play: { _ in })
        #expect(theirs.visual.status == "Snap! Ray takes 3 cards")
        let mine = TableModel()
        mine.start(seats: [.bottom, .top], mySeat: .top, names: [.bottom: "Ann", .top: "Ray"])
        mine.schedule(events, from: Self.table, now: 1)
        mine.advance(to: 1, play: { _ in })
        #expect(mine.visual.status == "Snap! You take 3 cards")
    }

    @Test("a round won outright: \"You win!\" on the winner's screen, \"Ray wins\" on the others'")
    func outright() {
        let loser = Self.model()
        loser.schedule([.roundWon(.top, wins: 1)], from: Self.table, now: 1)
        loser.advance(to: 10, play: { _ in })
        #expect(loser.visual.status == "Ray wins")
        let winner = Self.model()
        winner.schedule([.roundWon(.bottom, wins: 1)], from: Self.table, now: 1)
        var played: [TableSound] = []
        winner.advance(to: 1.5, play: { played.append($0) })
        #expect(winner.visual.status == "You win!")
        // A celebration at the winner's seat, with its sound.
        #expect(played == [.win])
        #expect(winner.effects.map(\.kind) == [.celebration] && winner.effects.first?.seat == .bottom)
        winner.advance(to: 10, play: { _ in })
        #expect(winner.effects.isEmpty, "the celebration ends")
    }

    @Test("the turn limit explains the win, then names the winner as each screen sees it")
    func turnLimit() {
        let loser = Self.model()
        loser.schedule([.turnLimitReached, .roundWon(.top, wins: 1)], from: Self.table, now: 1)
        loser.advance(to: 1, play: { _ in })
        #expect(loser.visual.status == "Turn limit reached: Ray holds the most cards")
        loser.advance(to: 10, play: { _ in })
        #expect(loser.visual.status == "Ray wins: the most cards at the turn limit")
        #expect(loser.visual.wins[Int(Seat.top.rawValue)] == 1)
        let winner = Self.model()
        winner.schedule([.turnLimitReached, .roundWon(.bottom, wins: 2)], from: Self.table, now: 1)
        winner.advance(to: 1, play: { _ in })
        #expect(winner.visual.status == "Turn limit reached: you hold the most cards")
        winner.advance(to: 10, play: { _ in })
        #expect(winner.visual.status == "You win: the most cards at the turn limit")
    }
}
