#if GUI
import SnapTable
import Glibc
import Logging
import SnapBots
import SnapEngine
import SnapNet
import SnapProtocol
import SnapScreens

/// The main menu, drawn: the title cards S, N, A, P and the Joker fly in and settle, then
/// the buttons appear. Its rules are `MenuModel`'s; this scene maps clicks and keys to the
/// model's intents, draws it, and keeps Host Game's game while it is made off the window's thread.
public final class MenuScene: Scene {
    typealias Action = MenuModel.Action
    typealias Title = MenuModel.Title

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

    private(set) var model: MenuModel
    private var buttons = ButtonSet<Action>()
    /// The model's alert, drawn (it keeps which of its buttons is held down).
    private(set) var dialog: Dialog?
    /// Host Game's game, made on a thread of its own (it binds its socket, makes its
    /// certificate and journal), so the menu keeps drawing meanwhile.
    private var hosting: JoinAttempt?

    /// `notice`: why the player landed here (their game ended); shown at once, over a settled menu.
    public init(app: App, playerName: String, notice: Alert? = nil) {
        model = MenuModel(playerName: playerName, now: app.now, notice: notice)
        let x = 512.0
        buttons.add(.host, Button("Host Game", center: Point(x, 390), width: 280))
        buttons.add(.join, Button("Join Game", center: Point(x, 446), width: 280))
        buttons.add(.solo, Button("Single Player", center: Point(x, 502), width: 280))
        buttons.add(.story, Button("Story", center: Point(x, 558), width: 280))
        buttons.add(.statistics, Button("Statistics", center: Point(x, 614), width: 280))
        buttons.add(.quit, Button("Quit", center: Point(x, 676), width: 150))
        syncDialog()
    }

    public var isAnimating: Bool { model.isAnimating }
    public var title: String { "Snap!" }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if var shown = dialog {
            let choice = shown.handle(input)
            dialog = shown
            return choice == nil ? nil : send(.dismissAlert, app: app)
        }
        if !model.isSettled {
            switch input {
            case .key(.escape): return send(.escape, app: app)
            case .press, .key: return send(.skipTitle, app: app)
            default: return nil
            }
        }
        switch input {
        case .press(let point) where !model.isHosting:
            buttons.press(point)
        case .release(let point) where !model.isHosting:  // the game being started is the one
            if let action = buttons.release(point) { return send(.choose(action), app: app) }
        case .key(.escape):
            return send(.escape, app: app)
        default:
            break
        }
        return nil
    }

    private func send(_ intent: MenuModel.Intent, app: App) -> SceneChange? {
        let effects = model.handle(intent, now: app.now)
        syncDialog()
        for case .startHosting(let name) in effects {
            let attempt = JoinAttempt()
            let (logger, make) = (app.logger, app.games.hostGame)
            attempt.start { try await make(name, logger) }
            hosting = attempt
        }
        return app.perform(effects)
    }

    private func syncDialog() {
        guard let alert = model.alert else { return dialog = nil }
        if dialog?.title != alert.title || dialog?.message != alert.message { dialog = Dialog.alert(alert.title, alert.message) }
    }

    public func update(now: Double, app: App) -> SceneChange? {
        if let attempt = hosting, let result = attempt.result {
            hosting = nil
            switch result {
            case .success(let client):
                _ = send(.hosted, app: app)
                return .show(HostLobbyScene(app: app, client: client))
            case .failure(let error):
                let (title, message) = MenuKit.describe(
                    error, hosting: model.playerName,
                    renameAdvice: "Change your name on the Join Game or Single Player screen.")
                return send(.hostingFailed(Alert(title, message)), app: app)
            }
        }
        return app.perform(model.update(now: now))
    }

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        let t = model.elapsed
        let textures = app.assets.titleLetters + [app.assets.joker]
        let size = Size(cardSize.width * Self.cardScale, cardSize.height * Self.cardScale)
        // Draw in flight order: a later card lands over an earlier one.
        for (index, card) in Self.titleCards.enumerated() {
            let local = (t - Title.firstCardAt - Double(index) * Title.cardInterval) / Title.flight
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

        let fade = MenuKit.clamp((t - Title.buttonsFadeIn.start) / (Title.buttonsFadeIn.end - Title.buttonsFadeIn.start))
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
        if model.isHosting {
            let dots = String(repeating: ".", count: 1 + Int(model.now * 3) % 3)
            graphics.text(model.footer + dots, at: Point(512, 708), size: 15, color: Color(255, 244, 214))
        } else {
            graphics.text(model.footer, at: Point(512, 708), size: 15, color: Color(220, 235, 220))
        }
        MenuKit.footer(graphics, "F11  full screen     Esc  quit")
        if let dialog { dialog.draw(graphics, assets: app.assets) }
    }
}
#endif
