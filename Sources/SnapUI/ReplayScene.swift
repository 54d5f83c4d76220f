#if GUI
import SnapEngine
import SnapProtocol
import SnapTable

/// `snapcards replay FILE`: a journaled match played back on the table, every card face up
/// (the match is over). The `ReplayDriver` feeds the model the logged events at their
/// logged times; this scene draws it and turns clicks and keys into the driver's controls.
public final class ReplayScene: Scene, TableDrawer {
    let driver: ReplayDriver
    var model: TableModel { driver.model }
    private var lastNow: Double?
    var exitButton = Button("Exit", center: TableLayout.exitCenter, width: 130)
    var previousButton = Button("Prev round", center: Point(95, 722), width: 160)
    var nextButton = Button("Next round", center: Point(265, 722), width: 160)
    var pauseButton = Button("Pause", center: Point(690, 722), width: 130)
    var slowerButton = Button("Slower", center: Point(825, 722), width: 120)
    var fasterButton = Button("Faster", center: Point(950, 722), width: 120)

    package init(app: App, driver: ReplayDriver) {
        self.driver = driver
        lastNow = app.now
        pauseButton.label = driver.isPaused ? "Play" : "Pause"
    }

    public var title: String { "Snap! — replay of \(driver.start.hostName)'s game" }

    /// Paused, nothing moves: the window sleeps until input.
    public var isAnimating: Bool { !driver.isPaused && (!driver.isFinished || model.isAnimating) }

    var roundInPlay: Bool {
        guard model.visual.round > 0, !model.visual.cleared else { return false }
        return driver.game.phase == .playing
    }

    func revealedTop(_ seat: Seat) -> Card? { driver.revealedTop(seat) }

    /// This match's wins only: the replay shows the match as it was.
    func earlierWins(_ seat: Seat) -> Int? { nil }

    private var buttons: [ReferenceWritableKeyPath<ReplayScene, Button>] {
        [\.exitButton, \.previousButton, \.nextButton, \.pauseButton, \.slowerButton, \.fasterButton]
    }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        switch input {
        case .press(let point):
            for button in buttons { self[keyPath: button].isPressed = self[keyPath: button].contains(point) }
        case .release(let point):
            var hit: ReferenceWritableKeyPath<ReplayScene, Button>?
            for button in buttons where self[keyPath: button].isPressed {
                if self[keyPath: button].contains(point) { hit = button }
                self[keyPath: button].isPressed = false
            }
            if hit == \ReplayScene.exitButton { return .quit }
            if hit == \ReplayScene.previousButton { driver.previousRound() }
            if hit == \ReplayScene.nextButton { driver.nextRound() }
            if hit == \ReplayScene.pauseButton { driver.isPaused.toggle() }
            if hit == \ReplayScene.slowerButton { driver.changeSpeed(faster: false) }
            if hit == \ReplayScene.fasterButton { driver.changeSpeed(faster: true) }
        case .key(.space): driver.isPaused.toggle()
        case .key(.left): driver.previousRound()
        case .key(.right): driver.nextRound()
        case .key(.up): driver.changeSpeed(faster: true)
        case .key(.down): driver.changeSpeed(faster: false)
        case .key(.escape): return .quit
        case .key(.m): app.audio.isMuted.toggle()
        default: break
        }
        pauseButton.label = driver.isPaused ? "Play" : "Pause"
        app.setNeedsRedraw()
        return nil
    }

    public func update(now: Double, app: App) -> SceneChange? {
        // The first frame starts the clock; a long stall (a busy machine) plays as one frame.
        let elapsed = lastNow.map { min(0.25, max(0, now - $0)) } ?? 0
        lastNow = now
        driver.advance(by: elapsed, play: { app.audio.play($0) })
        return nil
    }

    /// "2×", "½×".
    static func speedLabel(_ speed: Double) -> String {
        speed == 0.5 ? "½×" : "\(Int(speed))×"
    }

    /// The line in the middle of the table: the model's, or the end of the replay.
    var statusLine: String {
        if driver.isFinished { return "End of the match — Prev round to watch again" }
        return model.visual.status
    }

    public func draw(_ graphics: Graphics, app: App) {
        let assets = app.assets
        let now = driver.position
        Self.feltWithVignette(graphics, assets)
        let visual = model.visual
        let round = visual.round > 0 ? "Round \(visual.round) of \(driver.rounds)" : "Before the first deal"
        graphics.text("Replay · \(round)", at: Point(1004, 14), size: 16, bold: true, color: Self.winsColor, align: .right)
        graphics.text("Speed \(Self.speedLabel(driver.speed))" + (driver.isPaused ? " · paused" : ""),
                      at: Point(1004, 36), size: 14, color: Self.winsColor, align: .right)
        graphics.text("Space pause · Left/Right round · Up/Down speed", at: Point(1004, 56), size: 12,
                      color: Color(205, 225, 205, 170), align: .right, shadow: false)
        drawBoard(graphics, assets: assets, seats: driver.game.seats, now: now,
                  statusY: visual.deck > 0 ? TableLayout.statusAboveDeckY : TableLayout.statusCenterY) { y in
            let text = statusLine
            if !text.isEmpty {
                Self.drawStatusBand(graphics, text, color: Self.statusColors[visual.tone] ?? .white, y: y)
            }
        }
        for button in buttons { self[keyPath: button].draw(graphics, assets: assets) }
    }
}
#endif
