#if GUI
import SnapScreens
import Glibc
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapTable
import StoryEngine
import StoryLink
import StoryProtocol

/// Story's window, drawn: the list of your matches (Your turn / Their turn / Ended), and a
/// match view with the story, a text field with how many characters are left, the time left
/// for the turn, End Turn, Quit (Decline before one's first turn) and, once ended, Rematch.
/// Its rules are `StoryModel`'s; this scene keeps the connection to the service, hands the
/// model what it brings, maps clicks and keys to the model's intents, performs its effects,
/// and draws it.
public final class StoryScene: Scene {
    typealias Action = StoryModel.Action

    /// nil once signing in failed (or when there is no socket path to try).
    private var link: StoryServiceConnection?
    private(set) var model: StoryModel
    /// The fields as drawn: their frames, the model's text (copied in after each intent).
    private var field: TextField
    private var invite: TextField
    private var buttons = ButtonSet<Action>()
    private var rows: [(Rect, StoryMatchID)] = []
    /// The model's alert, drawn (it keeps which of its buttons is held down).
    private(set) var dialog: Dialog?
    /// Told each new status line of the view ("Waiting for Bob", "Your turn", "ended"), each
    /// notice and each refusal: `snapcards story window --print-status` prints them for tests.
    public var onStatus: ((String) -> Void)?

    /// Connects as `name`; a service that cannot be reached is said in the window.
    /// `trust`: how a TCP service's certificate is checked (nil: the player's known hosts).
    public init(app: App, endpoint: StoryEndpoint? = nil, name: String, open: StoryMatchID? = nil, joinCode: String = "",
                trust: ServerTrust? = nil) {
        var problem: String?
        do {
            let target = try endpoint ?? .unix(defaultStorySocketPath(create: false))
            link = StoryServiceConnection(endpoint: target, name: name, joinCode: joinCode, trust: trust)
        } catch {
            link = nil
            problem = "\(error)"
        }
        model = StoryModel(name: name, open: open, problem: problem, now: app.now, wallClock: Self.wallClock())
        field = TextField(model: model.turn, frame: Rect(x: 72, y: 560, width: 880, height: 96))
        invite = TextField(model: model.invite, frame: Rect(x: 356, y: 668, width: 336, height: 40))
    }

    public var isAnimating: Bool { model.isAnimating }
    public var title: String { model.title }

    /// Seconds since 1970: what the service's deadlines count in.
    private static func wallClock() -> UInt64 { UInt64(max(0, time(nil))) }

    // MARK: - Model

    public func update(now: Double, app: App) -> SceneChange? {
        var effects: [StoryModel.Effect] = []
        if let link {
            let (replies, state) = link.drain()
            for reply in replies { effects += model.handle(.reply(reply), now: now) }
            if let state { effects += model.handle(.connection(state), now: now) }
            if !model.hasService { self.link = nil }  // refused for good
            if !replies.isEmpty || state != nil { app.setNeedsRedraw() }
        }
        let noticed = model.notice
        effects += model.update(now: now, wallClock: Self.wallClock())
        if model.notice != noticed || !effects.isEmpty { app.setNeedsRedraw() }
        return perform(effects, app: app)
    }

    // MARK: - Input

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if var shown = dialog {
            let choice = shown.handle(input)
            dialog = shown
            return choice == nil ? nil : send(.dismissAlert, app: app)
        }
        switch input {
        case .key(.enter):
            return send(.enter, app: app)
        case .key(.escape):
            return send(.escape, app: app)
        case .press(let point):
            _ = send(.press(inTurnField: field.frame.contains(point), inInviteField: invite.frame.contains(point)), app: app)
            if !buttons.press(point), model.viewing == nil, let row = rows.first(where: { $0.0.contains(point) }) {
                return send(.choose(.listMatch(row.1)), app: app)
            }
        case .release(let point):
            if let action = buttons.release(point) { return send(.choose(action), app: app) }
        default:
            if let edit = TextField.edit(for: input) { return send(.edit(edit), app: app) }
        }
        return nil
    }

    private func send(_ intent: StoryModel.Intent, app: App) -> SceneChange? {
        perform(model.handle(intent, now: app.now), app: app)
    }

    /// Does what the model asked, and shows its fields and alert as they now stand.
    private func perform(_ effects: [StoryModel.Effect], app: App) -> SceneChange? {
        field.model = model.turn
        invite.model = model.invite
        if let alert = model.alert {
            if dialog?.title != alert.title || dialog?.message != alert.message { dialog = Dialog.alert(alert.title, alert.message) }
        } else {
            dialog = nil
        }
        var screen: [ScreenEffect] = []
        for effect in effects {
            switch effect {
            case .screen(let effect): screen.append(effect)
            case .send(let request): link?.send(request)
            case .status(let line): onStatus?(line)
            case .attention: if !app.graphics.hasFocus { app.graphics.flash() }
            }
        }
        return app.perform(screen)
    }

    // MARK: - Drawing

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        // The buttons are laid out afresh each frame; a press held across frames stays pressed.
        let previous = buttons
        buttons = ButtonSet<Action>()
        rows = []
        defer {
            for id in buttons.order where previous.order.contains(id) { buttons[id].isPressed = previous[id].isPressed }
        }
        switch model.page {
        case .problem(let problem):
            MenuKit.heading(graphics, "Story")
            MenuKit.paragraph(graphics, problem, at: Point(512, 260), width: 760, size: 18, color: MenuKit.errorColor, maxLines: 5)
            graphics.text("Start the service with:  snapcards story serve", at: Point(512, 400), size: 18, color: MenuKit.hintColor)
            buttons.add(.back, Button(Action.back.title, center: Point(512, 680), width: 150))
        case .match(let viewed):
            drawMatch(viewed, graphics, app: app)
        case .list:
            drawList(graphics, app: app)
        }
        buttons.draw(graphics, app.assets)
        if let notice = model.notice {
            // Over the footer: seen, without covering the story or the buttons.
            let box = Rect(x: 262, y: 726, width: 500, height: 36)
            MenuKit.panel(graphics, box, Color(255, 214, 90, 245), radius: 10)
            graphics.text(notice.text, at: Point(512, 733), size: 17, bold: true, color: .ink, shadow: false)
        }
        if model.showsAwayBand {
            // Away from the service with matches on screen: they stay, and a band over the
            // footer says so (the reason is in the status line, and on the list once empty).
            let band = Rect(x: 262, y: 726, width: 500, height: 36)
            MenuKit.panel(graphics, band, Color(196, 64, 52, 240), radius: 10)
            graphics.text(StoryModel.awayBand, at: Point(512, 733), size: 17, bold: true, color: .white, shadow: false)
        }
        if let dialog { dialog.draw(graphics, assets: app.assets) }
    }

    private func drawList(_ graphics: Graphics, app: App) {
        MenuKit.heading(graphics, "Story")
        graphics.text("Writing as \(model.name)", at: Point(512, 84), size: 15, color: MenuKit.hintColor)
        var y = 116.0
        for (label, group) in StoryModel.groups(model.mine, for: model.name) {
            MenuKit.label(graphics, "\(label)  (\(group.count))", at: Point(72, y))
            y += 28
            if group.isEmpty {
                graphics.text(model.loaded ? "none" : "…", at: Point(92, y), size: 15, color: MenuKit.hintColor, align: .left)
                y += 30
            }
            for match in group.prefix(label == "Ended" ? 3 : 4) {
                let row = Rect(x: 72, y: y, width: 880, height: 50)
                MenuKit.panel(graphics, row, MenuKit.rowColor, radius: 8)
                graphics.text(match.heading(length: 40), at: Point(86, y + 5), size: 17, bold: true, color: .white, align: .left)
                let names = match.participants.map(StoryModel.label).joined(separator: ", ")
                graphics.text(names, at: Point(86, y + 28), size: 13, color: MenuKit.hintColor, align: .left)
                graphics.text(model.rowStatus(of: match), at: Point(936, y + 5), size: 15, bold: true,
                              color: match.currentName == model.name ? .gold : .white, align: .right)
                graphics.text(model.ago(match), at: Point(936, y + 28), size: 13, color: MenuKit.hintColor, align: .right)
                rows.append((row, match.id))
                y += 56
            }
            if group.count > (label == "Ended" ? 3 : 4) {
                graphics.text("and \(group.count - (label == "Ended" ? 3 : 4)) more", at: Point(92, y - 2), size: 13, color: MenuKit.hintColor, align: .left)
                y += 18
            }
            y += 6
        }
        buttons.add(.automatch, Button(Action.automatch.title, center: Point(168, 688), width: 190))
        MenuKit.label(graphics, "Invite:", at: Point(282, 678))
        invite.draw(graphics, now: model.now)
        buttons.add(.invite, Button(Action.invite.title, center: Point(788, 688), width: 170))
        buttons.add(.back, Button(Action.back.title, center: Point(940, 688), width: 110))
        MenuKit.footer(graphics, model.footer)
    }

    private func drawMatch(_ match: StoryMatch, _ graphics: Graphics, app: App) {
        MenuKit.heading(graphics, match.heading(length: 36), y: 22)
        // The participants in order, whoever writes now in gold.
        var x = 72.0
        for (index, participant) in match.participants.enumerated() {
            let current = index == match.current
            let label = StoryModel.label(participant)
            let size = graphics.text(label, at: Point(x, 78), size: 16, bold: current,
                                     color: current ? .gold : participant.quit ? Color(170, 170, 170) : .white, align: .left)
            x += size.width + 22
        }
        let isMyTurn = model.isMyTurn
        let box = Rect(x: 56, y: 108, width: 912, height: isMyTurn ? 430 : 520)
        MenuKit.panel(graphics, box, Color(250, 246, 236, 240), radius: 10)
        // The end of the story when it does not all fit: the newest text matters most.
        let lineHeight = 16.0 * 1.35
        var lines = MenuKit.wrap(graphics, match.text.isEmpty ? "(The story has not started yet.)" : match.text, width: box.width - 32, size: 16)
        let fits = Int((box.height - 24) / lineHeight)
        if lines.count > fits { lines = ["…"] + lines.suffix(fits - 1) }
        for (index, line) in lines.enumerated() {
            graphics.text(line, at: Point(box.x + 16, box.y + 12 + Double(index) * lineHeight), size: 16,
                          color: match.text.isEmpty ? Color(120, 120, 120) : .ink, align: .left, shadow: false)
        }
        graphics.text(model.status(of: match), at: Point(72, box.y + box.height + 8), size: 17, bold: true,
                      color: isMyTurn ? .gold : .white, align: .left)
        if isMyTurn {
            drawTurnField(graphics)
            buttons.add(.endTurn, Button(Action.endTurn.title, center: Point(620, 700), width: 180))
        }
        switch model.leaveAction {
        case .quit?: buttons.add(.quit, Button(Action.quit.title, center: Point(800, 700), width: 130))
        case .decline?: buttons.add(.decline, Button(Action.decline.title, center: Point(800, 700), width: 150))
        default: break
        }
        if model.offersRematch {
            buttons.add(.rematch, Button(StoryModel.rematchTitle(match), center: Point(760, 700), width: 210))
            buttons[.rematch].isEnabled = model.isRematchEnabled
        }
        buttons.add(.back, Button(Action.back.title, center: Point(940, 700), width: 110))
        if isMyTurn { buttons[.endTurn].isEnabled = model.canEndTurn }
        MenuKit.footer(graphics, model.footer)
    }

    /// The turn's text, wrapped over the box's lines, with how many characters are left.
    private func drawTurnField(_ graphics: Graphics) {
        let frame = Rect(x: 56, y: 578, width: 912, height: 92)
        field.frame = frame
        graphics.fill(frame, Color(255, 255, 255, field.isFocused ? 240 : 200))
        graphics.outline(frame, field.isFocused ? .gold : Color(0, 0, 0, 120))
        let width = frame.width - 110
        let lines = MenuKit.wrap(graphics, field.text, width: width, size: 16)
        for (index, line) in lines.suffix(3).enumerated() {
            graphics.text(line, at: Point(frame.x + 10, frame.y + 8 + Double(index) * 21), size: 16, color: .ink, align: .left, shadow: false)
        }
        if field.isFocused, MenuKit.caretPhase(model.now) == 0 {
            // The caret after the text before it (the wrap of the prefix ends where the caret is).
            let before = MenuKit.wrap(graphics, String(field.text.prefix(field.caret)), width: width, size: 16)
            let row = min(2, max(0, before.count - 1) - max(0, lines.count - 3))
            let x = MenuKit.width(graphics, before.last ?? "", size: 16)
            graphics.fill(Rect(x: frame.x + 10 + x, y: frame.y + 8 + Double(max(0, row)) * 21, width: 2, height: 20), .ink)
        }
        let left = model.charactersLeft
        graphics.text("\(left) left", at: Point(frame.x + frame.width - 10, frame.y + frame.height - 22), size: 14, bold: left == 0,
                      color: left == 0 ? Color(200, 60, 40) : Color(110, 110, 110), align: .right, shadow: false)
        if field.text.isEmpty, !field.isFocused {
            graphics.text(StoryModel.turnPlaceholder, at: Point(frame.x + 10, frame.y + 8), size: 16,
                          color: Color(140, 140, 140), align: .left, shadow: false)
        }
    }
}
#endif
