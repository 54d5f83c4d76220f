import SnapEngine
import Testing
@testable import SnapBots

@Suite("Computer players")
struct BotTests {
    static let seven = Card(.seven, .clubs), otherSeven = Card(.seven, .hearts), king = Card(.king, .spades)

    /// A round in play between bottom and top, as the bots see it: face-down counts and the
    /// face-up piles (bottom first); the deck all dealt.
    static func playing(closed: [Seat: Int], open: [Seat: [Card]], active: Seat, hasTurned: Bool) -> TableView {
        var view = TableView(seats: [.bottom, .top])
        for seat in view.seats { view[seat] = TableView.Place(closedCount: closed[seat] ?? 0, open: open[seat] ?? []) }
        view.phase = .playing
        view.deckCount = 0
        view.round = 1
        view.active = active
        view.hasTurned = hasTurned
        return view
    }

    /// Bottom and top; bottom is active unless told otherwise. Top holds the cards not shown face down.
    func table(bottomOpen: [Card] = [], topOpen: [Card] = [], active: Seat = .bottom, hasTurned: Bool = false,
               bottomClosed: [Card]? = nil) -> TableView {
        let bottomClosed = bottomClosed ?? [Card(.two, .clubs)]
        let named = Set(bottomClosed + bottomOpen + topOpen).count
        return Self.playing(closed: [.bottom: bottomClosed.count, .top: 52 - named], open: [.bottom: bottomOpen, .top: topOpen],
                            active: active, hasTurned: hasTurned)
    }

    @Test("turns 0.5 s plus 0–2 s after it becomes active, not before")
    func turnDelay() {
        var earliest = Duration.seconds(100), latest = Duration.zero
        for seed in 0..<500 as Range<UInt64> {
            var bot = Bot(seat: .bottom, seed: seed)
            bot.observe([.activated(.bottom)], table: table(), now: .seconds(10))
            let wake = bot.nextWake!
            earliest = min(earliest, wake)
            latest = max(latest, wake)
            #expect(bot.due(at: wake - .milliseconds(1)) == nil)
            #expect(bot.due(at: wake) == .turn)
            #expect(bot.nextWake == nil)
        }
        #expect(earliest >= .milliseconds(10_500) && earliest < .milliseconds(10_600))
        #expect(latest <= .milliseconds(12_500) && latest > .milliseconds(12_400))
    }

    @Test("a player who is not active plans no turn")
    func notActive() {
        var bot = Bot(seat: .top, seed: 1)
        bot.observe([.activated(.bottom)], table: table(topOpen: [Self.king]), now: .zero)
        #expect(bot.pendingTurn == nil)
    }

    @Test("snaps 0.5–2.5 s after a turned card makes a match")
    func snapsOnMatch() {
        for seed in 0..<200 as Range<UInt64> {
            var bot = Bot(seat: .top, seed: seed)
            let matched = table(bottomOpen: [Self.seven], topOpen: [Self.otherSeven], hasTurned: true)
            bot.observe([.turned(.bottom, Self.seven)], table: matched, now: .seconds(1))
            let snap = bot.pendingSnap!
            #expect(snap >= .milliseconds(1_500) && snap <= .milliseconds(3_500))
            #expect(bot.due(at: snap) == .snap)
        }
    }

    @Test("about one in fifty cards without a match draws a deliberate wrong snap")
    func mistakes() {
        var bot = Bot(seat: .top, seed: 3)
        let noMatch = table(bottomOpen: [Self.seven], topOpen: [Self.king], hasTurned: true)
        var mistakes = 0
        for turn in 0..<20_000 {
            bot.observe([.turned(.bottom, Self.seven)], table: noMatch, now: .seconds(turn))
            if bot.pendingSnap != nil { mistakes += 1 }
        }
        // 400 expected; 4 standard deviations either side.
        #expect((320...480).contains(mistakes))
    }

    @Test("every turned card cancels a pending snap")
    func turnCancelsSnap() {
        var bot = Bot(seat: .top, seed: 1)
        let matched = table(bottomOpen: [Self.seven], topOpen: [Self.otherSeven], hasTurned: true)
        bot.observe([.turned(.bottom, Self.seven)], table: matched, now: .zero)
        #expect(bot.pendingSnap != nil)
        // The next card breaks the match: the old snap is gone (and a mistake is unlikely but possible).
        let broken = table(bottomOpen: [Self.seven, Self.king], topOpen: [Self.otherSeven], hasTurned: true)
        var cancelled = 0
        for seed in 0..<100 as Range<UInt64> {
            var copy = Bot(seat: .top, seed: seed)
            copy.observe([.turned(.bottom, Self.seven)], table: matched, now: .zero)
            copy.observe([.turned(.bottom, Self.king)], table: broken, now: .milliseconds(100))
            if copy.pendingSnap == nil { cancelled += 1 }
        }
        #expect(cancelled > 90)
    }

    @Test("a snap cancels a pending turn, rescheduled once the cards have moved")
    func snapReschedulesTurn() {
        var first = Duration.zero
        var rescheduledLater = 0
        for seed in 0..<50 as Range<UInt64> {
            var bot = Bot(seat: .bottom, seed: seed)
            bot.observe([.activated(.bottom)], table: table(), now: .zero)
            first = bot.pendingTurn!
            bot.observe([.snapCalled(.top), .snapWrong(caller: .top)], table: table(), now: .milliseconds(300))
            let again = bot.pendingTurn!
            #expect(again >= .milliseconds(800))
            if again != first { rescheduledLater += 1 }
        }
        #expect(rescheduledLater == 50)
    }

    @Test("a player with no cards, or a table not in play, plans nothing")
    func outPlansNothing() {
        var bot = Bot(seat: .top, seed: 1)
        let empty = Self.playing(closed: [.bottom: 51, .top: 0], open: [.bottom: [Self.seven]], active: .bottom, hasTurned: true)
        bot.observe([.turned(.bottom, Self.seven)], table: empty, now: .zero)
        #expect(bot.nextWake == nil)
        var over = table(bottomOpen: [Self.seven], topOpen: [Self.otherSeven], hasTurned: true)
        over.phase = .roundOver(winner: .bottom)
        bot.observe([.turned(.bottom, Self.seven)], table: over, now: .zero)
        #expect(bot.nextWake == nil)
    }

    @Test("levels: hard reacts faster and errs less than normal, normal than easy")
    func levels() {
        let easy = BotLevel.easy.timing, normal = BotLevel.normal.timing, hard = BotLevel.hard.timing
        #expect(hard.snapBase < normal.snapBase && normal.snapBase < easy.snapBase)
        #expect(hard.turnSpread < normal.turnSpread && normal.turnSpread < easy.turnSpread)
        #expect(hard.mistakeChance < normal.mistakeChance && normal.mistakeChance < easy.mistakeChance)
        #expect(normal.turnBase == .milliseconds(500) && normal.turnSpread == .seconds(2))
        #expect(normal.snapBase == .milliseconds(500) && normal.snapSpread == .seconds(2))
        #expect(normal.mistakeChance == 1.0 / 50)

        func meanSnap(_ level: BotLevel) -> Duration {
            var total = Duration.zero
            for seed in 0..<400 as Range<UInt64> {
                var bot = Bot(seat: .top, level: level, seed: seed)
                bot.observe([.turned(.bottom, Self.seven)],
                            table: table(bottomOpen: [Self.seven], topOpen: [Self.otherSeven], hasTurned: true), now: .zero)
                total += bot.pendingSnap!
            }
            return total / 400
        }
        #expect(meanSnap(.hard) < meanSnap(.normal))
        #expect(meanSnap(.normal) < meanSnap(.easy))
    }
}
