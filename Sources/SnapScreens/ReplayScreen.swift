import SnapTable

/// `snapcards replay FILE`'s controls and lines over its `ReplayDriver` (which plays the
/// journal on the table model): pause, a round back or on, slower or faster, and the words
/// the screen shows. The scene maps clicks and keys to intents and draws.
package struct ReplayScreen {
    package enum Intent: Equatable, Sendable {
        case togglePause, previousRound, nextRound, faster, slower, exit, toggleMute
    }

    package let driver: ReplayDriver

    package init(driver: ReplayDriver) {
        self.driver = driver
    }

    package func handle(_ intent: Intent, now: Double) -> [ScreenEffect] {
        switch intent {
        case .togglePause: driver.isPaused.toggle()
        case .previousRound: driver.previousRound()
        case .nextRound: driver.nextRound()
        case .faster: driver.changeSpeed(faster: true)
        case .slower: driver.changeSpeed(faster: false)
        case .exit: return [.quit]
        case .toggleMute: return [.toggleMute]
        }
        return []
    }

    /// The pause button's label: what pressing it does.
    package var pauseLabel: String { driver.isPaused ? "Play" : "Pause" }

    /// "2×", "½×".
    package static func speedLabel(_ speed: Double) -> String {
        speed == 0.5 ? "½×" : "\(Int(speed))×"
    }

    /// "Replay · Round 2 of 3", or before the first deal.
    package var roundLine: String {
        let round = driver.model.visual.round
        return "Replay · " + (round > 0 ? "Round \(round) of \(driver.rounds)" : "Before the first deal")
    }

    /// "Speed 2×", "Speed 1× · paused".
    package var speedLine: String {
        "Speed \(Self.speedLabel(driver.speed))" + (driver.isPaused ? " · paused" : "")
    }

    /// The line in the middle of the table: the model's, or the end of the replay.
    package var statusLine: String {
        driver.isFinished ? "End of the match — Prev round to watch again" : driver.model.visual.status
    }
}
