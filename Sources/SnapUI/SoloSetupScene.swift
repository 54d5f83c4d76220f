#if GUI
import SnapTable
import SnapBots
import SnapEngine
import SnapProtocol
import SnapScreens

/// Single player, drawn: the opponents, their level, the player's name and Play. Its rules
/// are `SoloSetupModel`'s; this scene maps clicks and keys to the model's intents and draws it.
public final class SoloSetupScene: Scene {
    enum Action: Hashable {
        case opponents(Int)
        case level(BotLevel)
        case play, back
    }

    private(set) var model: SoloSetupModel
    private var nameField: TextField
    private var buttons = ButtonSet<Action>()
    private var caret = -1

    public init(app: App, savedName: String) {
        model = SoloSetupModel(savedName: savedName)
        nameField = TextField(model: model.name, frame: Rect(x: 312, y: 122, width: 400, height: 42))
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
        switch input {
        case .press(let point):
            buttons.press(point)
            return send(.focusName(nameField.frame.contains(point)), app: app)
        case .release(let point):
            switch buttons.release(point) {
            case .opponents(let count)?: return send(.opponents(count), app: app)
            case .level(let chosen)?: return send(.level(chosen), app: app)
            case .play?: return send(.play, app: app)
            case .back?: return send(.back, app: app)
            case nil: return nil
            }
        case .key(.enter): return send(.enter, app: app)
        case .key(.tab): return send(.tab, app: app)
        case .key(.escape): return send(.escape, app: app)
        default:
            guard let edit = TextField.edit(for: input) else { return nil }
            return send(.edit(edit), app: app)
        }
    }

    private func send(_ intent: SoloSetupModel.Intent, app: App) -> SceneChange? {
        let effects = model.handle(intent, now: app.now)
        nameField.model = model.name
        return app.perform(effects)
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
        if let nameError = model.nameError {
            graphics.text(nameError, at: Point(512, 170), size: 15, color: MenuKit.errorColor)
        }

        // Opponents: the toggles, then who sits at the table.
        let top = Rect(x: 152, y: 200, width: 720, height: 180)
        MenuKit.panel(graphics, top)
        graphics.text("Opponents", at: Point(top.x + 28, top.y + 16), size: 22, bold: true, color: .white, align: .left)
        for count in 1...3 {
            MenuKit.drawToggle(graphics, app.assets, buttons[.opponents(count)], selected: model.opponents == count)
        }
        // Who sits at the table: a card and a name each, the ones left out faded.
        let card = Size(24, 36)
        let widths = SoloSetupModel.opponentNames.map { MenuKit.width(graphics, $0, size: 18, bold: true) + card.width + 10 }
        let gap = 44.0
        var x = 512 - (widths.reduce(0, +) + gap * Double(widths.count - 1)) / 2
        for (index, name) in SoloSetupModel.opponentNames.enumerated() {
            let playing = index < model.opponents
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
            MenuKit.drawToggle(graphics, app.assets, buttons[.level(level)], selected: model.level == level)
        }
        graphics.text(SoloSetupModel.levelNotes[model.level] ?? "", at: Point(512, bottom.y + 134), size: 17, color: MenuKit.hintColor)

        buttons[.back].draw(graphics, assets: app.assets)
        buttons[.play].draw(graphics, assets: app.assets)
        graphics.text("Enter plays", at: Point(632, 708), size: 13, color: MenuKit.hintColor)
    }
}
#endif
