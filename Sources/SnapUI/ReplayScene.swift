#if GUI
import SnapEngine
import SnapProtocol
import SnapTable
import SnapScreens

/// `snapcards replay FILE`: a journaled match played back on the table, every card face up
/// (the match is over). The `ReplayDriver` feeds the model the logged events at their
/// logged times; this scene draws it and turns clicks and keys into the driver's controls.
public final class ReplayScene: Scene, TableDrawer {
    let screen: ReplayScreen
    var driver: ReplayDriver { screen.driver }
    var model: TableModel { driver.model }
    private var lastNow: Double?
    var exitButton = Button("Exit", center: TableLayout.exitCenter, width: 130)
    var previousButton = Button("Prev round", center: Point(95, 722), width: 160)
    var nextButton = Button("Next round", center: Point(265, 722), width: 160)
    var pauseButton = Button("Pause", center: Point(690, 722), width: 130)
    var slowerButton = Button("Slower", center: Point(825, 722), width: 120)
    var fasterButton = Button("Faster", center: Point(950, 722), width: 120)

    package init(app: App, driver: ReplayDriver) {
        screen = ReplayScreen(driver: driver)
        lastNow = app.now
        pauseButton.label = screen.pauseLabel
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

    /// Each button and what it asks of the replay.
    private let controls: [(button: ReferenceWritableKeyPath<ReplayScene, Button>, intent: ReplayScreen.Intent)] = [
        (\.exitButton, .exit), (\.previousButton, .previousRound), (\.nextButton, .nextRound),
        (\.pauseButton, .togglePause), (\.slowerButton, .slower), (\.fasterButton, .faster),
    ]
    private var buttons: [ReferenceWritableKeyPath<ReplayScene, Button>] { controls.map(\.button) }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        switch input {
        case .press(let point):
            for button in buttons { self[keyPath: button].isPressed = self[keyPath: button].contains(point) }
        case .release(let point):
            var hit: ReplayScreen.Intent?
            for (button, intent) in controls where self[keyPath: button].isPressed {
                if self[keyPath: button].contains(point) { hit = intent }
                self[keyPath: button].isPressed = false
            }
            if let hit { return send(hit, app: app) }
        case .key(.space): return send(.togglePause, app: app)
        case .key(.left): return send(.previousRound, app: app)
        case .key(.right): return send(.nextRound, app: app)
        case .key(.up): return send(.faster, app: app)
        case .key(.down): return send(.slower, app: app)
        case .key(.escape): return send(.exit, app: app)
        case .key(.m): return send(.toggleMute, app: app)
        default: break
        }
        app.setNeedsRedraw()
        return nil
    }

    private func send(_ intent: ReplayScreen.Intent, app: App) -> SceneChange? {
        let change = app.perform(screen.handle(intent, now: app.now))
        pauseButton.label = screen.pauseLabel
        app.setNeedsRedraw()
        return change
    }

    public func update(now: Double, app: App) -> SceneChange? {
        // The first frame starts the clock; a long stall (a busy machine) plays as one frame.
        let elapsed = lastNow.map { min(0.25, max(0, now - $0)) } ?? 0
        lastNow = now
        driver.advance(by: elapsed, play: { app.audio.play($0) })
        return nil
    }

    public func draw(_ graphics: Graphics, app: App) {
        let assets = app.assets
        let now = driver.position
        Self.feltWithVignette(graphics, assets)
        let visual = model.visual
        graphics.text(screen.roundLine, at: Point(1004, 14), size: 16, bold: true, color: Self.winsColor, align: .right)
        graphics.text(screen.speedLine, at: Point(1004, 36), size: 14, color: Self.winsColor, align: .right)
        graphics.text("Space pause · Left/Right round · Up/Down speed", at: Point(1004, 56), size: 12,
                      color: Color(205, 225, 205, 170), align: .right, shadow: false)
        drawBoard(graphics, assets: assets, seats: driver.game.seats, now: now,
                  statusY: visual.deck > 0 ? TableLayout.statusAboveDeckY : TableLayout.statusCenterY) { y in
            let text = screen.statusLine
            if !text.isEmpty {
                Self.drawStatusBand(graphics, text, color: Self.statusColors[visual.tone] ?? .white, y: y)
            }
        }
        for button in buttons { self[keyPath: button].draw(graphics, assets: assets) }
    }
}
#endif
