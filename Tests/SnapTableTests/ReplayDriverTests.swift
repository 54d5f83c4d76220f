import SnapEngine
import SnapProtocol
import SnapSession
@testable import SnapTable
import SnapTestSupport
import Testing

@Suite("Replaying a journal on the table model")
struct ReplayDriverTests {
    static let records = journaledMatch(rounds: 3, seed: 11)

    /// Plays until `done` holds, in frames of `frame` seconds (at most `limit` seconds of playback).
    static func play(_ driver: ReplayDriver, frame: Double = 1.0 / 30, limit: Double = 20_000,
                     until done: (ReplayDriver) -> Bool) {
        var frames = 0
        while !done(driver), frames < Int(limit / frame) {
            driver.advance(by: frame)
            frames += 1
        }
    }

    @Test("played to the end, the drawn table is the game's final table, with every round's winner counted")
    func playsToTheEnd() throws {
        let driver = try ReplayDriver(records: Self.records)
        #expect(driver.rounds == 3)
        #expect(driver.fed == 0)
        Self.play(driver, frame: 0.1) { $0.isFinished }
        #expect(driver.isFinished)
        #expect(driver.round == 3)
        let final = try #require(try MatchReplay.fold(Self.records).game)
        #expect(driver.game == final)
        for seat in final.seats {
            #expect(driver.model.visual.wins[Int(seat.rawValue)] == final.hand(seat).wins)
        }
        #expect(final.seats.map { final.hand($0).wins }.reduce(0, +) == 3)
        #expect(driver.model.visual.status.hasSuffix("wins"))
    }

    @Test("paused, nothing moves however much time passes; resumed, the match goes on")
    func pause() throws {
        let driver = try ReplayDriver(records: Self.records)
        Self.play(driver) { $0.model.visual.round == 1 && $0.model.visual.deck == 0 && $0.fed > 5 }
        driver.isPaused = true
        let (position, fed, visual, flights) = (driver.position, driver.fed, driver.model.visual, driver.model.flights.count)
        for _ in 0..<600 { driver.advance(by: 1.0 / 60) }
        #expect(driver.position == position)
        #expect(driver.fed == fed)
        #expect(driver.model.visual == visual)
        #expect(driver.model.flights.count == flights)
        driver.isPaused = false
        Self.play(driver, limit: 60) { $0.fed > fed }
        #expect(driver.fed > fed)
    }

    @Test("seek: 20 s into the match is the table frames at 1× reach at 20 s, paused or not")
    func seek() throws {
        let played = try ReplayDriver(records: Self.records)
        for _ in 0..<600 { played.advance(by: 1.0 / 30) }
        let sought = try ReplayDriver(records: Self.records)
        sought.isPaused = true
        sought.setSpeed(4)
        sought.seek(to: played.position)
        #expect(abs(sought.position - played.position) < 1e-9)
        #expect(sought.fed == played.fed && sought.fed > 0)
        #expect(sought.game == played.game)
        #expect(sought.isPaused && sought.speed == 4)
        // Seeking back restarts from the first record.
        sought.seek(to: 1)
        #expect(sought.fed < played.fed)
        #expect(abs(sought.position - 1) < 1e-9)
    }

    @Test("speed: the clock runs at ½×, 1×, 2×, 4× real time, and stops at either end of the list")
    func speed() throws {
        let driver = try ReplayDriver(records: Self.records)
        #expect(driver.speed == 1)
        driver.changeSpeed(faster: true)
        #expect(driver.speed == 2)
        driver.advance(by: 1)
        #expect(driver.position == 2)
        driver.changeSpeed(faster: true)
        driver.changeSpeed(faster: true)
        #expect(driver.speed == 4)
        driver.advance(by: 0.5)
        #expect(driver.position == 4)
        for _ in 0..<5 { driver.changeSpeed(faster: false) }
        #expect(driver.speed == 0.5)
        driver.advance(by: 2)
        #expect(driver.position == 5)
    }

    @Test("a whole match at 4× ends on the same table, in a quarter of the frames")
    func fasterPlaysTheSame() throws {
        let normal = try ReplayDriver(records: Self.records)
        var normalFrames = 0
        while !normal.isFinished, normalFrames < 500_000 { normal.advance(by: 0.1); normalFrames += 1 }
        let fast = try ReplayDriver(records: Self.records)
        fast.setSpeed(4)
        var fastFrames = 0
        while !fast.isFinished, fastFrames < 500_000 { fast.advance(by: 0.1); fastFrames += 1 }
        #expect(normal.isFinished && fast.isFinished)
        #expect(fast.game == normal.game)
        #expect(fast.model.visual.wins == normal.model.visual.wins)
        #expect(Double(fastFrames) < Double(normalFrames) / 3)
    }

    @Test("skip to a round lands on the table the round before left, then deals it, as playing straight through does")
    func skipToRound() throws {
        let straight = try ReplayDriver(records: Self.records)
        Self.play(straight) { $0.fed == $0.roundStarts[1] }
        let skipped = try ReplayDriver(records: Self.records)
        skipped.skip(toRound: 2)
        #expect(skipped.fed == skipped.roundStarts[1])
        #expect(skipped.game == straight.game)
        #expect(skipped.round == 1)
        // The first round's winner is counted before the deal.
        let winner = try #require(straight.game.seats.first { straight.game.hand($0).wins == 1 })
        #expect(skipped.model.visual.wins[Int(winner.rawValue)] == 1)
        // Both deal round 2; once the cards are out, the tables agree.
        for driver in [straight, skipped] {
            Self.play(driver) { $0.round == 2 && $0.model.visual.round == 2 && $0.model.visual.deck == 0 && $0.model.isIdle }
        }
        #expect(skipped.model.visual.round == 2)
        #expect(skipped.model.visual.closed == straight.model.visual.closed)
        #expect(skipped.model.visual.open == straight.model.visual.open)

        // Next from round 2 is round 3; previous from 3 is round 2; previous from 1 stays at 1.
        skipped.nextRound()
        #expect(skipped.fed == skipped.roundStarts[2])
        Self.play(skipped) { $0.round == 3 }
        skipped.previousRound()
        #expect(skipped.fed == skipped.roundStarts[1])
        skipped.skip(toRound: 1)
        skipped.previousRound()
        #expect(skipped.fed == skipped.roundStarts[0])
        #expect(skipped.model.visual.wins.allSatisfy { $0 == 0 })
        skipped.skip(toRound: 99)
        #expect(skipped.fed == skipped.roundStarts[2])
    }

    @Test("face-down cards are shown: a settled closed pile's top card is the game's")
    func revealsFaceDown() throws {
        let driver = try ReplayDriver(records: Self.records)
        Self.play(driver) { $0.round == 1 && $0.model.visual.deck == 0 && $0.model.isIdle && $0.fed > 10 }
        var shown = 0
        for seat in driver.game.seats where !driver.game.hand(seat).closed.isEmpty {
            #expect(driver.revealedTop(seat) == driver.game.hand(seat).closed.last)
            shown += 1
        }
        #expect(shown > 0)
    }

    @Test("a journal with no match, or one that does not replay, is refused in words")
    func badJournals() {
        #expect(throws: ReplayLoadError("the journal has no match in it (no start record)")) {
            try ReplayDriver(records: [])
        }
        var broken = Self.records
        broken.remove(at: 3)
        #expect(throws: ReplayLoadError.self) { try ReplayDriver(records: broken) }
        do {
            _ = try ReplayDriver(records: broken)
        } catch {
            #expect(error.description.contains("does not replay"))
        }
    }
}
