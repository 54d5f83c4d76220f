#if GUI
import SnapTable
import Glibc
import Logging
import SnapBots
import SnapEngine
import SnapNet
import SnapProtocol

/// The main menu: the title cards S, N, A, P and the Joker fly in and settle, then
/// Host Game, Join Game, Single Player, Story and Statistics appear. Esc (or Quit) quits.
public final class MenuScene: Scene {
    enum Action: Hashable { case host, join, solo, story, statistics, quit }

    /// The title animation, in seconds from the scene's start.
    static let firstCardAt = 0.1
    static let cardInterval = 0.2
    static let flight = 0.55
    static let buttonsFadeIn = (start: 1.2, end: 1.55)
    static var animationEnd: Double { buttonsFadeIn.end + 0.05 }

    /// Each title card's slot (centre) and where it comes from.
    struct TitleCard {
        var from: Point
        var to: Point
        var startDegrees: Double
        var startScale: Double
    }

    static let cardScale = 2.0
    static let titleY = 175.0
    static let titleCards: [TitleCard] = {
        let step = 152.0
        let centres = (0..<5).map { Point(512 + (Double($0) - 2) * step, titleY) }
        return [
            TitleCard(from: Point(-180, 560), to: centres[0], startDegrees: -38, startScale: 1.15),
            TitleCard(from: Point(260, 1_000), to: centres[1], startDegrees: 30, startScale: 1.15),
            TitleCard(from: Point(760, 1_000), to: centres[2], startDegrees: -30, startScale: 1.15),
            TitleCard(from: Point(1_210, 560), to: centres[3], startDegrees: 38, startScale: 1.15),
            TitleCard(from: Point(1_000, -260), to: centres[4], startDegrees: -200, startScale: 1.35),
        ]
    }()

    private let start: Double
    private var now: Double
    private var skipped = false
    private var landed = 0
    private var buttons = ButtonSet<Action>()
    var dialog: Dialog?
    private let playerName: String
    /// Host Game under way: the game is made on a thread of its own (it binds its socket,
    /// makes its certificate and journal), so the menu keeps drawing meanwhile.
    private var hosting: JoinAttempt?

    /// How Host Game makes its game: `GameClient.host`, or a test's slower one.
    nonisolated(unsafe) package static var host: @Sendable (String, Logger) async throws -> GameClient = {
        try await GameClient.host(name: $0, logger: $1)
    }

    /// `notice`: why the player landed here (their game ended); shown at once, over a settled menu.
    public init(app: App, notice: (title: String, message: String)? = nil) {
        start = app.now
        now = start
        playerName = Settings.load().name
        if let notice {
            dialog = Dialog.alert(notice.title, notice.message)
            skipped = true
            landed = Self.titleCards.count
        }
        let x = 512.0
        buttons.add(.host, Button("Host Game", center: Point(x, 390), width: 280))
        buttons.add(.join, Button("Join Game", center: Point(x, 446), width: 280))
        buttons.add(.solo, Button("Single Player", center: Point(x, 502), width: 280))
        buttons.add(.story, Button("Story", center: Point(x, 558), width: 280))
        buttons.add(.statistics, Button("Statistics", center: Point(x, 614), width: 280))
        buttons.add(.quit, Button("Quit", center: Point(x, 676), width: 150))
    }

    private var elapsed: Double { skipped ? .infinity : now - start }

    /// True once the buttons can be clicked.
    private var isSettled: Bool { elapsed >= Self.buttonsFadeIn.start }

    /// The title's flight, and the dots of "Starting your game…" while Host Game is under way.
    public var isAnimating: Bool { (!skipped && now - start < Self.animationEnd) || hosting != nil }
    public var title: String { "Snap!" }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if var shown = dialog {
            let choice = shown.handle(input)
            dialog = choice == nil ? shown : nil
            return nil
        }
        // Any click or key during the title skips to the end of it.
        if !isSettled {
            switch input {
            case .press, .key:
                if input == .key(.escape) { return .quit }
                skipped = true
                landed = Self.titleCards.count
            default: break
            }
            return nil
        }
        switch input {
        case .press(let point) where hosting == nil:
            buttons.press(point)
        case .release(let point) where hosting == nil:  // the game being started is the one
            if let action = buttons.release(point) { return perform(action, app: app) }
        case .key(.escape):
            return .quit
        default:
            break
        }
        return nil
    }

    private func perform(_ action: Action, app: App) -> SceneChange? {
        switch action {
        case .host:
            guard hosting == nil else { return nil }
            let attempt = JoinAttempt()
            let (name, logger, make) = (playerName, app.logger, Self.host)
            attempt.start { try await make(name, logger) }
            hosting = attempt
            return nil
        case .join: return .show(JoinScene(app: app))
        case .solo: return .show(SoloSetupScene(app: app))
        case .story: return .show(StoryScene(app: app, name: Settings.load().name))
        case .statistics: return .show(StatisticsScene(app: app))
        case .quit: return .quit
        }
    }

    public func update(now: Double, app: App) -> SceneChange? {
        self.now = now
        if let attempt = hosting, let result = attempt.result {
            hosting = nil
            switch result {
            case .success(let client):
                return .show(HostLobbyScene(app: app, client: client))
            case .failure(let error):
                let (title, message) = MenuKit.describe(
                    error, hosting: playerName,
                    renameAdvice: "Change your name on the Join Game or Single Player screen.")
                dialog = Dialog.alert(title, message)
            }
        }
        // A card flick as each title card lands.
        while landed < Self.titleCards.count,
              elapsed >= Self.firstCardAt + Double(landed) * Self.cardInterval + Self.flight * 0.8 {
            landed += 1
            app.audio.play(.flick)
        }
        return nil
    }

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        let t = elapsed
        let textures = app.assets.titleLetters + [app.assets.joker]
        let size = Size(cardSize.width * Self.cardScale, cardSize.height * Self.cardScale)
        // Draw in flight order: a later card lands over an earlier one.
        for (index, card) in Self.titleCards.enumerated() {
            let local = (t - Self.firstCardAt - Double(index) * Self.cardInterval) / Self.flight
            guard local > 0 else { continue }
            let u = min(1, local)
            let move = MenuKit.easeOutBack(u, overshoot: 1.2)
            let centre = card.from + (card.to - card.from) * move
            // The tilt settles with a small wobble; the card "lands" from slightly bigger.
            let settle = 1 - MenuKit.easeOutCubic(u)
            let wobble = u < 1 ? sin(u * .pi * 3) * 4 * (1 - u) : 0
            let degrees = card.startDegrees * settle * settle + wobble
            let scale = 1 + (card.startScale - 1) * settle
            let rect = Rect(center: centre, size: Size(size.width * scale, size.height * scale))
            // A soft shadow once the card is nearly flat on the table.
            if u > 0.6 {
                let shade = (u - 0.6) / 0.4
                graphics.fill(Rect(x: rect.x + 6, y: rect.y + 8, width: rect.width, height: rect.height).insetBy(4),
                              Color(0, 0, 0, UInt8(70 * shade * (abs(degrees) < 3 ? 1 : 0))))
            }
            graphics.draw(textures[index], in: rect, degrees: degrees)
        }

        let fade = MenuKit.clamp((t - Self.buttonsFadeIn.start) / (Self.buttonsFadeIn.end - Self.buttonsFadeIn.start))
        guard fade > 0 else { return }
        let alpha = UInt8(255 * fade)
        graphics.text("Turn the cards. Spot a pair. Call Snap!", at: Point(512, 300), size: 20,
                      color: Color(255, 244, 214, alpha), shadow: fade >= 1)
        if fade < 1 {
            // Buttons slide up a little as they fade in.
            let lift = (1 - fade) * 16
            for id in [Action.host, .join, .solo, .story, .statistics, .quit] {
                var button = buttons[id]
                button.frame.y += lift
                graphics.draw(app.assets.button, in: button.frame, alpha: fade)
            }
            return
        }
        buttons.draw(graphics, app.assets)
        if hosting != nil {
            let dots = String(repeating: ".", count: 1 + Int(now * 3) % 3)
            graphics.text("Starting your game\(dots)", at: Point(512, 708), size: 15, color: Color(255, 244, 214))
        } else {
            graphics.text("Playing as \(playerName)", at: Point(512, 708), size: 15, color: Color(220, 235, 220))
        }
        MenuKit.footer(graphics, "F11  full screen     Esc  quit")
        if let dialog { dialog.draw(graphics, assets: app.assets) }
    }
}
#endif
