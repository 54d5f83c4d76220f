import SnapEngine
import SnapProtocol
import Testing
@testable import SnapSession

/// The judge alone: reaction estimates, the judging window and the verdicts' order, with
/// no game and no network.
@Suite("The judge: fair judging of Snap!")
struct SnapJudgeTests {
    /// A judge whose deal finished at 1 s and whose first card was turned at 2 s.
    static func judge(cap: Duration = .milliseconds(300), seed: UInt64 = 1) -> SnapJudge {
        var judge = SnapJudge(matchSeed: seed, windowCap: cap)
        judge.observe(.roundStarted(round: 1, startingSeat: .bottom), at: .zero)
        judge.observe(.dealFinished, at: .seconds(1))
        judge.observe(.turned(.bottom, Card(.five, .hearts)), at: .seconds(2))
        return judge
    }

    @Test("an honest claim stands; one faster than the link allows is raised to the floor; none exceeds the time since the card")
    func estimates() {
        let judge = Self.judge()
        let now = Duration.seconds(2) + .milliseconds(250)  // 250 ms after the card went out
        let rtt = Duration.milliseconds(40)
        let slack = SnapJudge.slack(rtt)
        #expect(slack == .microseconds(300) + .milliseconds(10))
        // Pressed 200 ms after it showed: possible, since 250 − 40 − 10.3 < 200.
        #expect(judge.estimate(SnapCall(seenTurns: 1, reactionMicros: 200_000), roundTrip: rtt, now: now) == .milliseconds(200))
        // A claimed 1 ms is clamped to what the arrival allows.
        #expect(judge.estimate(SnapCall(seenTurns: 1, reactionMicros: 1_000), roundTrip: rtt, now: now)
            == .milliseconds(250) - rtt - slack)
        // Slower than the time since the card: at most that.
        #expect(judge.estimate(SnapCall(seenTurns: 1, reactionMicros: 900_000), roundTrip: rtt, now: now) == .milliseconds(250))
        // A call about the deal (card 0) was pressed before this card: as if pressed on arrival.
        #expect(judge.estimate(SnapCall(seenTurns: 0, reactionMicros: 1), roundTrip: rtt, now: now) == .milliseconds(250))
    }

    @Test("the host's own computer claims its reaction from when the current card went out")
    func computerCall() {
        let judge = Self.judge()
        #expect(judge.computerCall(at: .seconds(2) + .milliseconds(700)) == SnapCall(seenTurns: 1, reactionMicros: 700_000))
        #expect(SnapJudge(matchSeed: 1, windowCap: .zero).computerCall(at: .seconds(5)) == SnapCall(seenTurns: 0, reactionMicros: 0))
    }

    @Test("the window stays open while a rival on a slower link could still win, and never past the cap")
    func window() {
        var judge = Self.judge()
        let now = Duration.seconds(2) + .milliseconds(200)
        // 190 ms claimed over a 20 ms round trip, 200 ms after the card: believed.
        judge.add(SnapCall(seenTurns: 1, reactionMicros: 190_000), from: .bottom, roundTrip: .milliseconds(20), now: now)
        #expect(judge.calls.map(\.estimate) == [.milliseconds(190)])
        #expect(judge.isWaiting && judge.hasCalled(.bottom) && !judge.hasCalled(.top))
        // A rival 80 ms away could still show a faster reaction until 2 s + 190 + 80 + 20.3 ms.
        let open = judge.keepOpen(forRivals: [.milliseconds(80)], now: now)
        #expect(open)
        #expect(judge.deadline == .seconds(2) + .milliseconds(290) + .microseconds(300))
        // With a tight cap, the window closes 5 ms after the first call whatever the rivals.
        var capped = Self.judge(cap: .milliseconds(5))
        capped.add(SnapCall(seenTurns: 1, reactionMicros: 190_000), from: .bottom, roundTrip: .zero, now: now)
        let cappedOpen = capped.keepOpen(forRivals: [.milliseconds(80)], now: now)
        #expect(cappedOpen)
        #expect(capped.deadline == now + .milliseconds(5))
        // Nobody left who could call: judge at once.
        var alone = Self.judge()
        alone.add(SnapCall(seenTurns: 1, reactionMicros: 190_000), from: .bottom, roundTrip: .zero, now: now)
        let aloneOpen = alone.keepOpen(forRivals: [], now: now)
        #expect(!aloneOpen)
        #expect(alone.deadline == nil)
    }

    @Test("verdicts: fastest reaction first whatever the arrival order; the window closes")
    func fastestFirst() {
        var judge = Self.judge()
        let card = Duration.seconds(2)
        judge.add(SnapCall(seenTurns: 1, reactionMicros: 240_000), from: .left, roundTrip: .zero, now: card + .milliseconds(240))
        judge.add(SnapCall(seenTurns: 1, reactionMicros: 200_000), from: .top, roundTrip: .milliseconds(60),
                  now: card + .milliseconds(260))
        let open = judge.keepOpen(forRivals: [], now: card + .milliseconds(260))
        #expect(!open)
        let verdicts = judge.verdicts(now: card + .milliseconds(260))
        #expect(verdicts?.order == [.top, .left])
        #expect(verdicts?.log == "judged after waiting 20000 µs: top 200000 µs, left 240000 µs")
        #expect(!judge.isWaiting && judge.deadline == nil)
        let again = judge.verdicts(now: card + .seconds(1))
        #expect(again == nil)
    }

    @Test("exact ties are broken in the match's seeded order: the same seed, the same order")
    func seededTies() {
        func order(seed: UInt64) -> [[Seat]] {
            var judge = Self.judge(seed: seed)
            var orders: [[Seat]] = []
            for turn in 0..<20 {
                let now = Duration.seconds(2 + turn) + .milliseconds(100)
                judge.observe(.turned(.bottom, Card(.five, .hearts)), at: .seconds(2 + turn))
                for seat in [Seat.bottom, .left, .top, .right] {
                    judge.add(SnapCall(seenTurns: UInt32(turn + 2), reactionMicros: 100_000), from: seat, roundTrip: .zero, now: now)
                }
                orders.append(judge.verdicts(now: now)!.order)
            }
            return orders
        }
        #expect(order(seed: 7) == order(seed: 7))
        #expect(Set(order(seed: 7)).count > 1)  // the ties do not always go the same way
        #expect(order(seed: 7) != order(seed: 8))
    }

    @Test("a new round forgets the cards and the calls; a won round closes the window")
    func rounds() {
        var judge = Self.judge()
        #expect(judge.referenceSentAt == [.seconds(1), .seconds(2)])
        judge.add(SnapCall(seenTurns: 1, reactionMicros: 100_000), from: .left, roundTrip: .zero, now: .seconds(3))
        let open = judge.keepOpen(forRivals: [.milliseconds(500)], now: .seconds(3))
        #expect(open)
        #expect(judge.deadline == .seconds(3) + .milliseconds(300))  // the cap
        judge.observe(.roundWon(.left, wins: 1), at: .seconds(3))
        #expect(!judge.isWaiting && judge.deadline == nil)
        judge.observe(.roundStarted(round: 2, startingSeat: .left), at: .seconds(4))
        #expect(judge.referenceSentAt.isEmpty)
        judge.resume(turnsThisRound: 3, at: .seconds(9))
        #expect(judge.referenceSentAt == Array(repeating: .seconds(9), count: 4))
    }
}
