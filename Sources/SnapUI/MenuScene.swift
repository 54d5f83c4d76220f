#if GUI
import SnapTable
import Glibc
import SnapBots
import SnapEngine
import SnapNet
import SnapProtocol

/// The main menu: the title cards S, N, A, P and the Joker fly in and settle, then
/// Host Game, Join Game, Single Player and Story appear. Esc (or Quit) quits.
public final class MenuScene: Scene {
    enum Action: Hashable { case host, join, solo, story, quit }

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

    /// `notice`: why the player landed here (their game ended); shown at once, over a settled menu.
    public init(app: App, notice: (title: String, message: String)? = nil) {
        start = app.now
        now = start
        playerName = Settings.load().name
        if let notice {
            dialog = MenuKit.alert(notice.title, notice.message)
            skipped = true
            landed = Self.titleCards.count
        }
        let x = 512.0
        buttons.add(.host, Button("Host Game", center: Point(x, 390), width: 280))
        buttons.add(.join, Button("Join Game", center: Point(x, 446), width: 280))
        buttons.add(.solo, Button("Single Player", center: Point(x, 502), width: 280))
        buttons.add(.story, Button("Story", center: Point(x, 558), width: 280))
        buttons.add(.quit, Button("Quit", center: Point(x, 622), width: 150))
    }

    private var elapsed: Double { skipped ? .infinity : now - start }

    /// True once the buttons can be clicked.
    private var isSettled: Bool { elapsed >= Self.buttonsFadeIn.start }

    public var isAnimating: Bool { !skipped && now - start < Self.animationEnd }
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
        case .press(let point):
            buttons.press(point)
        case .release(let point):
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
            do {
                let client = try GameClient.host(name: Settings.load().name, logger: app.logger)
                return .show(HostLobbyScene(app: app, client: client))
            } catch {
                let (title, message) = MenuKit.describe(
                    error, hosting: Settings.load().name,
                    renameAdvice: "Change your name on the Join Game or Single Player screen.")
                dialog = MenuKit.alert(title, message)
                return nil
            }
        case .join: return .show(JoinScene(app: app))
        case .solo: return .show(SoloSetupScene(app: app))
        case .story: return .show(StoryScene(app: app, name: Settings.load().name))
        case .quit: return .quit
        }
    }

    public func update(now: Double, app: App) -> SceneChange? {
        self.now = now
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
            for id in [Action.host, .join, .solo, .story, .quit] {
                var button = buttons[id]
                button.frame.y += lift
                graphics.draw(app.assets.button, in: button.frame, alpha: fade)
            }
            return
        }
        buttons.draw(graphics, app.assets)
        graphics.text("Playing as \(playerName)", at: Point(512, 660), size: 15, color: Color(220, 235, 220))
        MenuKit.footer(graphics, "F11  full screen     Esc  quit")
        if let dialog { MenuKit.drawDialog(graphics, app.assets, dialog) }
    }
}

// MARK: - Shared look of the menu screens

/// Buttons keyed by what they do: press on `.press`, act on `.release` inside (like `Dialog`).
struct ButtonSet<ID: Hashable> {
    private(set) var order: [ID] = []
    private var buttons: [ID: Button] = [:]
    var hidden: Set<ID> = []

    mutating func add(_ id: ID, _ button: Button) {
        if buttons[id] == nil { order.append(id) }
        buttons[id] = button
    }

    subscript(id: ID) -> Button {
        get { buttons[id]! }
        set { buttons[id] = newValue }
    }

    /// Presses the button under `point`; true if one was pressed.
    @discardableResult
    mutating func press(_ point: Point) -> Bool {
        var any = false
        for id in order {
            let hit = !hidden.contains(id) && buttons[id]!.isEnabled && buttons[id]!.contains(point)
            buttons[id]!.isPressed = hit
            any = any || hit
        }
        return any
    }

    /// The button pressed and released inside, if any; every button pops back up.
    mutating func release(_ point: Point) -> ID? {
        var chosen: ID?
        for id in order {
            if buttons[id]!.isPressed, buttons[id]!.contains(point), chosen == nil { chosen = id }
            buttons[id]!.isPressed = false
        }
        return chosen
    }

    var isAnyPressed: Bool { order.contains { buttons[$0]!.isPressed } }

    func draw(_ graphics: Graphics, _ assets: Assets) {
        for id in order where !hidden.contains(id) { buttons[id]!.draw(graphics, assets: assets) }
    }
}

enum MenuKit {
    static let labelColor = Color(255, 240, 200)
    static let hintColor = Color(210, 228, 210)
    static let errorColor = Color(255, 150, 130)
    static let panelColor = Color(0, 0, 0, 85)
    static let rowColor = Color(255, 255, 255, 22)
    static let rowHoverColor = Color(255, 255, 255, 48)

    static func clamp(_ x: Double) -> Double { max(0, min(1, x)) }
    static func easeOutCubic(_ t: Double) -> Double { 1 - pow(1 - t, 3) }
    static func easeOutBack(_ t: Double, overshoot s: Double = 1.70158) -> Double {
        let p = t - 1
        return 1 + (s + 1) * p * p * p + s * p * p
    }

    /// Felt, darkened a little towards the top and bottom edges.
    static func background(_ graphics: Graphics, _ assets: Assets) {
        graphics.tile(assets.felt, tileSize: Size(256, 256))
        let band = 10.0
        for step in 0..<12 {
            let alpha = UInt8(54 - step * 4)
            graphics.fill(Rect(x: 0, y: Double(step) * band, width: logicalSize.width, height: band), Color(0, 0, 0, alpha))
            graphics.fill(Rect(x: 0, y: logicalSize.height - Double(step + 1) * band, width: logicalSize.width, height: band),
                          Color(0, 0, 0, alpha))
        }
    }

    /// A screen's big title, gold.
    static func heading(_ graphics: Graphics, _ text: String, y: Double = 34) {
        graphics.text(text, at: Point(512, y), size: 40, bold: true, color: .gold)
    }

    /// A small, quiet line along the bottom edge.
    static func footer(_ graphics: Graphics, _ text: String) {
        graphics.text(text, at: Point(512, 738), size: 13, color: Color(200, 220, 200, 200))
    }

    /// A rounded, translucent box.
    static func panel(_ graphics: Graphics, _ rect: Rect, _ color: Color = panelColor, radius: Double = 14) {
        graphics.fillRoundedRect(rect, color, radius: radius)
    }

    /// A label above a field.
    static func label(_ graphics: Graphics, _ text: String, at point: Point) {
        graphics.text(text, at: point, size: 17, bold: true, color: labelColor, align: .left)
    }

    /// How wide `text` is drawn.
    static func width(_ graphics: Graphics, _ text: String, size: Int, bold: Bool = false) -> Double {
        guard let texture = graphics.textTexture(text, size: size, bold: bold) else { return 0 }
        return Double(texture.pixelWidth) / 2
    }

    /// `text` broken into lines no wider than `width` (a word longer than that is cut).
    static func wrap(_ graphics: Graphics, _ text: String, width: Double, size: Int, bold: Bool = false) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if self.width(graphics, candidate, size: size, bold: bold) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            var piece = String(word)
            while self.width(graphics, piece, size: size, bold: bold) > width, piece.count > 1 {
                var cut = piece
                while self.width(graphics, cut, size: size, bold: bold) > width, cut.count > 1 { cut.removeLast() }
                lines.append(cut)
                piece.removeFirst(cut.count)
            }
            line = piece
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Draws wrapped text (at most `maxLines`, the last one ending in "…" if cut); returns the height used.
    @discardableResult
    static func paragraph(_ graphics: Graphics, _ text: String, at origin: Point, width: Double, size: Int,
                          color: Color, bold: Bool = false, align: Graphics.Alignment = .center,
                          maxLines: Int = 3, shadow: Bool = true) -> Double {
        var lines = wrap(graphics, text, width: width, size: size, bold: bold)
        if lines.count > maxLines {
            lines = Array(lines.prefix(maxLines))
            var last = lines[maxLines - 1]
            while !last.isEmpty, self.width(graphics, last + "…", size: size, bold: bold) > width { last.removeLast() }
            lines[maxLines - 1] = last + "…"
        }
        let lineHeight = Double(size) * 1.35
        for (index, line) in lines.enumerated() {
            graphics.text(line, at: Point(origin.x, origin.y + Double(index) * lineHeight), size: size, bold: bold,
                          color: color, align: align, shadow: shadow)
        }
        return Double(lines.count) * lineHeight
    }

    /// The box menu dialogs are drawn in: a little taller than `Dialog`'s, for messages of a few lines.
    static let dialogFrame = Rect(center: Point(512, 384), size: Size(540, 264))
    static let dialogButtonsY = dialogFrame.y + dialogFrame.height - 46

    /// `Dialog.alert`, its button placed for `drawDialog`.
    static func alert(_ title: String, _ message: String) -> Dialog {
        var dialog = Dialog.alert(title, message)
        dialog.yes.frame.y = dialogButtonsY - dialog.yes.frame.height / 2
        return dialog
    }

    /// `Dialog.confirm`, its buttons placed for `drawDialog`.
    static func confirm(_ title: String, _ message: String, yes: String, no: String) -> Dialog {
        var dialog = Dialog.confirm(title, message, yes: yes, no: no)
        dialog.yes.frame.y = dialogButtonsY - dialog.yes.frame.height / 2
        dialog.no?.frame.y = dialogButtonsY - dialog.yes.frame.height / 2
        return dialog
    }

    /// A dialog with its message wrapped (Dialog itself draws one line), in a rounded box.
    static func drawDialog(_ graphics: Graphics, _ assets: Assets, _ dialog: Dialog) {
        graphics.fill(Rect(x: 0, y: 0, width: logicalSize.width, height: logicalSize.height), Color.dim)
        let frame = dialogFrame
        panel(graphics, frame.insetBy(-3), Color(60, 40, 20), radius: 18)
        panel(graphics, frame, Color(250, 246, 236), radius: 16)
        graphics.text(dialog.title, at: Point(frame.center.x, frame.y + 26), size: 26, bold: true, color: .ink, shadow: false)
        let width = frame.width - 70
        let lines = min(4, wrap(graphics, dialog.message, width: width, size: 17).count)
        // Centre the message between the title and the buttons.
        let top = frame.y + 66 + (4 - Double(lines)) * 23 / 2
        paragraph(graphics, dialog.message, at: Point(frame.center.x, top), width: width, size: 17, color: .ink,
                  maxLines: 4, shadow: false)
        dialog.yes.draw(graphics, assets: assets)
        dialog.no?.draw(graphics, assets: assets)
    }

    /// A selectable option drawn as a button: blue and ringed in gold when chosen, grey otherwise.
    static func drawToggle(_ graphics: Graphics, _ assets: Assets, _ button: Button, selected: Bool) {
        if selected {
            panel(graphics, button.frame.insetBy(-4), Color(255, 214, 90, 200), radius: 12)
        }
        let image = button.isPressed ? assets.buttonPressed : (selected ? assets.button : assets.buttonDisabled)
        graphics.draw(image, in: button.frame)
        let offset = button.isPressed ? 3.0 : 0
        graphics.text(button.label, at: Point(button.frame.center.x, button.frame.y + 9 + offset), size: 18, bold: true,
                      color: selected || button.isPressed ? .white : Color(70, 70, 70), shadow: selected || button.isPressed)
    }

    /// The caret of a focused field blinks twice a second: ask for a redraw when it changes.
    static func caretPhase(_ now: Double) -> Int { Int(now * 2) % 2 }

    /// The next free-looking variant of a taken name: "Ann" → "Ann 2", "Ann 2" → "Ann 3",
    /// shortened to fit a name's 20 characters.
    static func nextVariant(of name: String) -> String {
        var base = name
        var number = 2
        if let space = name.lastIndex(of: " "), let n = Int(name[name.index(after: space)...]), n >= 1, n < 999_999 {
            base = String(name[..<space])
            number = n + 1
        }
        let suffix = " \(number)"
        var scalars = Array(base.unicodeScalars.prefix(PlayerName.maxScalars - suffix.unicodeScalars.count))
        while scalars.last == " " { scalars.removeLast() }
        var text = String(String.UnicodeScalarView(scalars))
        if text.isEmpty { text = "Player" }
        return text + suffix
    }

    /// A character a name may not hold, in words: the character itself when it can be
    /// shown, else what kind it is (never a code point like U+0007).
    static func forbiddenCharacterSentence(_ scalar: Unicode.Scalar) -> String {
        let what: String
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned: what = "an invisible control character"
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: what = "that kind of space"
        default: what = "\u{201C}\(Character(scalar))\u{201D}"
        }
        return "A name cannot hold \(what): use letters, digits, spaces and - _ . '"
    }

    /// Why `name` cannot be a player's name, in words; nil if it can.
    static func nameProblem(_ name: String) -> String? {
        do {
            try PlayerName.validate(name)
            return nil
        } catch {
            guard case .badName(let problem) = error else { return "\(error)" }
            switch problem {
            case .empty: return "Please type a name."
            case .leadingOrTrailingWhitespace: return "A name cannot start or end with a space."
            case .consecutiveSpaces: return "A name cannot have two spaces in a row."
            case .forbiddenCharacter(let scalar): return forbiddenCharacterSentence(scalar)
            case .tooManyCharacters: return "A name holds at most \(PlayerName.maxScalars) characters."
            case .tooManyBytes: return "That name is too long: use fewer accented or non-Latin letters."
            }
        }
    }

    /// A short title and a readable sentence for an error of starting or joining a game.
    static func describe(_ error: Error, hosting name: String? = nil,
                         renameAdvice: String = "Choose another name.") -> (title: String, message: String) {
        if let net = error as? NetError {
            switch net {
            case .hostNameTaken:
                return ("Name in use", "A game called \(name ?? "that") is already open here. " + renameAdvice)
            case .badAddress(let text):
                return ("Not an address", "\"\(text)\" is not HOST:PORT, e.g. 192.168.1.20:7777.")
            case .badPort(let text, let range):
                return ("Not a port", "The port in \"\(text)\" must be \(range.lowerBound) to \(range.upperBound).")
            case .hostBusy(let place, _):
                return ("Host busy", "\(shortPlace(place)) is too busy to let anyone in. Try again in a moment.")
            case .cannotConnect(let place, let why):
                return ("Cannot connect", "No game answered at \(shortPlace(place)) (\(shortReason(why))).")
            case .pathTooLong:
                return ("Name too long", "That name makes the socket path too long. Choose a shorter name.")
            case .cannotListen(_, let why):
                return ("Cannot host", "This computer would not open the game: \(shortReason(why)).")
            case .socketDirectory(let path, let why):
                return ("Cannot host", "The folder \(path) cannot be used: \(why).")
            case .noHost(let why):
                return ("No answer", why)
            }
        }
        if let problem = error as? ProtocolError { return ("Invalid name", "\(problem)") }
        return ("Something went wrong", "\(error)")
    }

    /// "unix:/run/user/1000/snap/Ann.sock" → "Ann"; "tcp:host:port" → "host:port".
    static func shortPlace(_ place: String) -> String {
        if place.hasPrefix("unix:") {
            let path = place.dropFirst(5)
            let file = path.split(separator: "/").last.map(String.init) ?? String(path)
            return file.hasSuffix(".sock") ? "\"" + String(file.dropLast(5)) + "\"" : file
        }
        if place.hasPrefix("tcp:") { return String(place.dropFirst(4)) }
        return place
    }

    /// NIO's error descriptions, boiled down to the part a player can act on.
    static func shortReason(_ why: String) -> String {
        let lower = why.lowercased()
        if lower.contains("refused") { return "connection refused" }
        if lower.contains("no such file") || lower.contains("no such socket") { return "the game is gone" }
        if lower.contains("timed out") || lower.contains("timeout") { return "no answer in time" }
        if lower.contains("unreachable") { return "network unreachable" }
        if lower.contains("name or service") || lower.contains("resolve") || lower.contains("lookup") { return "unknown host name" }
        if lower.contains("address already in use") { return "address already in use" }
        if lower.contains("permission") { return "permission denied" }
        if lower.contains("unreadable") || lower.contains("magic") { return "it is not a Snap! game" }
        if lower.contains("closed the connection") || lower.contains("reset") { return "it hung up" }
        if lower.contains("nothing heard") { return "it stopped answering" }
        return why.count > 80 ? String(why.prefix(77)) + "…" : why
    }
}
#endif
