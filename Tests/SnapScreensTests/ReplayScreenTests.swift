@testable import SnapScreens
import SnapTable
import SnapTestSupport
import Testing

@Suite("The replay screen's controls")
struct ReplayScreenTests {
    @Test("pause, rounds and speed through intents; the lines say where the replay is")
    func controls() throws {
        let screen = ReplayScreen(driver: try ReplayDriver(records: journaledMatch(rounds: 3, seed: 11)))
        #expect(screen.roundLine == "Replay · Before the first deal")
        #expect(screen.speedLine == "Speed 1×" && screen.pauseLabel == "Pause")
        #expect(screen.handle(.togglePause, now: 0).isEmpty)
        #expect(screen.driver.isPaused && screen.pauseLabel == "Play" && screen.speedLine == "Speed 1× · paused")
        _ = screen.handle(.faster, now: 0)
        _ = screen.handle(.faster, now: 0)
        #expect(screen.speedLine == "Speed 4× · paused")
        _ = screen.handle(.faster, now: 0)
        #expect(screen.driver.speed == 4, "4× is the fastest")
        for _ in 0..<4 { _ = screen.handle(.slower, now: 0) }
        #expect(ReplayScreen.speedLabel(screen.driver.speed) == "½×")
        _ = screen.handle(.togglePause, now: 0)
        _ = screen.handle(.faster, now: 0)
        #expect(screen.speedLine == "Speed 1×")
        // A round's jump lands a moment before its deal: the deal plays as the replay goes on.
        for (intent, round) in [(ReplayScreen.Intent.nextRound, 1), (.nextRound, 2), (.nextRound, 3), (.nextRound, 3), (.previousRound, 2)] {
            _ = screen.handle(intent, now: 0)
            screen.driver.advance(by: 5)  // the deal's cards land: the drawn table is in that round
            #expect(screen.driver.round == round && screen.roundLine == "Replay · Round \(round) of 3", "after \(intent), \(screen.roundLine)")
        }
        #expect(screen.handle(.toggleMute, now: 0) == [.toggleMute])
        #expect(screen.handle(.exit, now: 0) == [.quit])
    }

    @Test("played to its end, the status line says so and how to watch again")
    func end() throws {
        let screen = ReplayScreen(driver: try ReplayDriver(records: journaledMatch(rounds: 1, seed: 3)))
        var seconds = 0.0
        while !screen.driver.isFinished, seconds < 20_000 {
            screen.driver.advance(by: 0.1)
            seconds += 0.1
        }
        #expect(screen.driver.isFinished)
        #expect(screen.statusLine == "End of the match — Prev round to watch again")
    }
}
