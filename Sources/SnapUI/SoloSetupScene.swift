#if GUI
import SnapTable
import SnapBots
import SnapEngine
import SnapProtocol

/// Single player: how many computer opponents (1–3: Ray, Lucy, Steve), how good they
/// are, your name, then Play.
public final class SoloSetupScene: Scene {
    enum Action: Hashable {
        case opponents(Int)
        case level(BotLevel)
        case play, back
    }

    static let opponentNames = Bot.names
    static let levelNotes: [BotLevel: String] = [
        .easy: "Relaxed: slow hands, and a wrong Snap! now and then.",
        .normal: "The classic pace.",
        .hard: "Lightning fast, and they rarely get it wrong.",
    ]

    private var opponents = 3
    private var level = BotLevel.normal
    private var nameField: TextField
    private var nameError: String?
    private var buttons = ButtonSet<Action>()
    private var caret = -1

    public init(app: App) {
        nameField = .name(Settings.load().name, frame: Rect(x: 312, y: 122, width: 400, height: 42))
        for count in 1...3 {
            buttons.add(.opponents(count), Button(count == 1 ? "1 opponent" : "\(count) opponents",
                                                   center: Point(512 + Double(count - 2) * 220, 282), width: 200))
        }
        for (index, level) in BotLevel.allCases.enumerated() {
            buttons.add(.level(level), Button(level.rawValue.capitalized,
                                              center: Point(512 + Double(index - 1) * 220, 482), width: 200))
        }
        buttons.add(.back, Button("Back", center: Point(392, 680), width: 200))
        buttons.add(.play, Button("Play", center: Point(632, 680), width: 200))
    }

    public var isAnimating: Bool { false }
    public var title: String { "Snap!" }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if nameField.handle(input) { nameError = nil }
        if let rejected = nameField.rejection { nameError = rejected }
        switch input {
        case .press(let point):
            buttons.press(point)
        case .release(let point):
            guard let action = buttons.release(point) else { break }
            switch action {
            case .opponents(let count): opponents = count
            case .level(let chosen): level = chosen
            case .play: return play(app: app)
            case .back: return .show(MenuScene(app: app))
            }
        case .key(.enter):
            return play(app: app)
        case .key(.tab):
            nameField.isFocused.toggle()
        case .key(.escape):
            if nameField.isFocused {
                nameField.isFocused = false
            } else {
                return .show(MenuScene(app: app))
            }
        default:
            break
        }
        return nil
    }

    private func play(app: App) -> SceneChange? {
        let name = nameField.text
        if let problem = MenuKit.nameProblem(name) {
            nameError = problem
            nameField.isFocused = true
            return nil
        }
        var settings = Settings.load()
        if settings.name != name {
            settings.name = name
            settings.save()
        }
        let client = GameClient.solo(name: name, opponents: opponents, level: level, logger: app.logger)
        return .show(TableScene(app: app, client: client))
    }

    public func update(now: Double, app: App) -> SceneChange? {
        if nameField.isFocused, MenuKit.caretPhase(now) != caret {
            caret = MenuKit.caretPhase(now)
            app.setNeedsRedraw()
        }
        return nil
    }

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        MenuKit.heading(graphics, "Single Player")

        MenuKit.label(graphics, "Your name", at: Point(nameField.frame.x, 96))
        nameField.draw(graphics, now: app.now)
        if let nameError {
            graphics.text(nameError, at: Point(512, 170), size: 15, color: MenuKit.errorColor)
        }

        // Opponents: the toggles, then who sits at the table.
        let top = Rect(x: 152, y: 200, width: 720, height: 180)
        MenuKit.panel(graphics, top)
        graphics.text("Opponents", at: Point(top.x + 28, top.y + 16), size: 22, bold: true, color: .white, align: .left)
        for count in 1...3 {
            MenuKit.drawToggle(graphics, app.assets, buttons[.opponents(count)], selected: opponents == count)
        }
        // Who sits at the table: a card and a name each, the ones left out faded.
        let card = Size(24, 36)
        let widths = Self.opponentNames.map { MenuKit.width(graphics, $0, size: 18, bold: true) + card.width + 10 }
        let gap = 44.0
        var x = 512 - (widths.reduce(0, +) + gap * Double(widths.count - 1)) / 2
        for (index, name) in Self.opponentNames.enumerated() {
            let playing = index < opponents
            let frame = Rect(x: x, y: top.y + 124, width: card.width, height: card.height)
            graphics.draw(app.assets.back, in: frame, alpha: playing ? 1 : 0.3)
            graphics.text(name, at: Point(frame.x + card.width + 10, frame.y + 7), size: 18, bold: true,
                          color: playing ? .white : Color(255, 255, 255, 80), align: .left, shadow: playing)
            x += widths[index] + gap
        }

        // Level.
        let bottom = Rect(x: 152, y: 400, width: 720, height: 180)
        MenuKit.panel(graphics, bottom)
        graphics.text("Level", at: Point(bottom.x + 28, bottom.y + 16), size: 22, bold: true, color: .white, align: .left)
        for level in BotLevel.allCases {
            MenuKit.drawToggle(graphics, app.assets, buttons[.level(level)], selected: self.level == level)
        }
        graphics.text(Self.levelNotes[level] ?? "", at: Point(512, bottom.y + 134), size: 17, color: MenuKit.hintColor)

        buttons[.back].draw(graphics, assets: app.assets)
        buttons[.play].draw(graphics, assets: app.assets)
        graphics.text("Enter plays", at: Point(632, 708), size: 13, color: MenuKit.hintColor)
    }
}
#endif
