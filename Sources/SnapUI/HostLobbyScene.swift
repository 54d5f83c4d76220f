#if GUI
import SnapTable
import SnapBots
import SnapEngine
import SnapProtocol

/// The host's lobby: its name (Enter renames the game, until someone joins: the game
/// listens under the host's name, and renaming it would leave the joined players
/// behind), the players who joined (live), where to join, Start (with at least one
/// other player) and Exit.
public final class HostLobbyScene: Scene {
    enum Action: Hashable { case start, exit }
    /// Where Start sits (tests click it with a real pointer).
    static let startButtonCenter = Point(632, 680)
    enum Pending { case exit }

    private var client: GameClient
    var nameField: TextField
    private var nameError: String?
    var nameNotice: String?
    private var buttons = ButtonSet<Action>()
    private var dialog: Dialog?
    private var pending: Pending?
    /// The game closed under us: OK goes back to the menu.
    private var closed = false
    private var players: [LobbyPlayer] = []
    private var caret = -1

    static let maxPlayers = 4
    static let panel = Rect(x: 232, y: 226, width: 560, height: 304)

    /// Windows to open one at a time, each once everyone opened before it is in the lobby
    /// (`snapcards play`): seats go by joining order, so "Player 3" then sits before "Player 4".
    private var launches: [() throws -> Void]
    private var launched = 0

    public init(app: App, client: GameClient, launchInTurn launches: [() throws -> Void] = []) {
        self.client = client
        self.launches = launches
        nameField = .name(client.name, frame: Rect(x: 312, y: 136, width: 400, height: 42))
        buttons.add(.exit, Button("Exit", center: Point(392, 680), width: 200))
        buttons.add(.start, Button("Start", center: Self.startButtonCenter, width: 200))
        buttons[.start].isEnabled = false
    }

    public var isAnimating: Bool { false }
    public var title: String { "Snap! — \(client.name) (host)" }

    /// Everyone in the lobby but this window's own player.
    private var others: [LobbyPlayer] {
        let mine = client.session.welcome?.playerID ?? 0
        return players.filter { $0.id != mine }
    }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if var shown = dialog {
            guard let choice = shown.handle(input) else {
                dialog = shown
                return nil
            }
            dialog = nil
            if closed { return .show(MenuScene(app: app)) }
            let action = pending
            pending = nil
            guard choice == .yes, let action else { return nil }
            switch action {
            case .exit: return exit(app: app)
            }
        }
        let wasFocused = nameField.isFocused
        // Once someone joined, the name is fixed: the field takes no typing.
        if !others.isEmpty, case .press(let point) = input, nameField.frame.contains(point) {
            nameNotice = "Players have joined: the game keeps its name."
            app.setNeedsRedraw()
        } else if others.isEmpty, nameField.handle(input) {
            nameError = nil
            nameNotice = nil
        }
        if others.isEmpty, let rejected = nameField.rejection { nameError = rejected }
        if wasFocused, !nameField.isFocused, nameField.text != client.name, nameError == nil {
            nameNotice = "Press Enter in the field to rename your game."
        }
        switch input {
        case .press(let point):
            buttons.press(point)
        case .release(let point):
            switch buttons.release(point) {
            case .start?: return start(app: app)
            case .exit?: return askExit(app: app)
            case nil: break
            }
        case .key(.enter):
            if nameField.isFocused || nameField.text != client.name {
                submitName(app: app)
            } else if buttons[.start].isEnabled {
                return start(app: app)
            }
        case .key(.tab):
            nameField.isFocused.toggle()
        case .key(.escape):
            if nameField.isFocused {
                // Esc in the field drops the edit.
                nameField.set(client.name)
                nameField.isFocused = false
                nameError = nil
                nameNotice = nil
            } else {
                return askExit(app: app)
            }
        default:
            break
        }
        return nil
    }

    private func submitName(app: App) {
        let name = nameField.text
        if let problem = MenuKit.nameProblem(name) {
            nameError = problem
            return
        }
        nameField.isFocused = false
        guard name != client.name else {
            nameNotice = nil
            return
        }
        if client.network != nil {
            // Renaming opens a new game, which would lose the TCP port, its announcement and its code.
            nameField.set(client.name)
            nameError = "A game on the network keeps its name: start snapcards host --name … again to change it"
            return
        }
        if others.isEmpty {
            rename(to: name, app: app)
        } else {
            keepName()
        }
    }

    /// Someone joined while the name was being edited: the game keeps its name.
    private func keepName() {
        nameField.set(client.name)
        nameField.isFocused = false
        nameError = nil
        nameNotice = "Players have joined: the game keeps the name \(client.name)."
    }

    /// A rename under way: the new game is opened off the window's thread (it binds its
    /// socket and starts its journal), and the lobby keeps drawing meanwhile.
    private var renaming: (attempt: JoinAttempt, name: String)?

    /// The host listens under its name: open a game under the new one, then close the old.
    private func rename(to name: String, app: App) {
        guard renaming == nil else { return }
        let attempt = JoinAttempt()
        let (make, logger) = (client.rehoster, app.logger)
        attempt.start { try await make(name, logger) }
        renaming = (attempt, name)
        nameError = nil
        nameNotice = "Opening your game as \(name)…"
    }

    /// The renamed game, once it is open (or why not).
    private func finishRenaming(app: App) {
        guard let (attempt, name) = renaming, let result = attempt.result else { return }
        renaming = nil
        app.setNeedsRedraw()
        switch result {
        case .success(let fresh) where !others.isEmpty:
            // Someone joined the old game meanwhile: it keeps its name.
            fresh.leave()
            keepName()
        case .success(let fresh):
            client.leave()
            client = fresh
            players = []
            app.setTitle(title)
            var settings = Settings.load(from: client.directories.settings)
            settings.name = name
            settings.save(to: client.directories.settings)
            nameError = nil
            nameNotice = "Your game is now called \(name)."
        case .failure(let error):
            nameNotice = nil
            nameError = MenuKit.describe(error, hosting: name).message
            nameField.isFocused = true
        }
    }

    private func start(app: App) -> SceneChange? {
        guard !others.isEmpty else { return nil }
        client.start()
        return .show(TableScene(app: app, client: client))
    }

    private func askExit(app: App) -> SceneChange? {
        guard others.isEmpty else {
            dialog = Dialog.confirm("Close the game?", "The players who joined will be sent back.", yes: "Close", no: "Stay")
            pending = .exit
            return nil
        }
        return exit(app: app)
    }

    private func exit(app: App) -> SceneChange? {
        client.leave()
        return .show(MenuScene(app: app))
    }

    public func update(now: Double, app: App) -> SceneChange? {
        finishRenaming(app: app)
        _ = client.poll(now: now)
        let lobby = client.session.lobby
        if lobby != players {
            players = lobby
            app.setNeedsRedraw()
            if !others.isEmpty, nameField.isFocused || nameField.text != client.name { keepName() }
        }
        if launched < launches.count, others.count >= launched {
            launched += 1
            do { try launches[launched - 1]() } catch { app.logger.warning("a window did not open: \(error)") }
        }
        let canStart = !others.isEmpty
        if buttons[.start].isEnabled != canStart {
            buttons[.start].isEnabled = canStart
            app.setNeedsRedraw()
        }
        switch client.session.phase {
        case .playing:
            return .show(TableScene(app: app, client: client))
        case .ended(_, let message) where !closed:
            closed = true
            dialog = Dialog.alert("The game closed", message.isEmpty ? "Your game is no longer open." : message)
            app.setNeedsRedraw()
        default:
            break
        }
        if nameField.isFocused, MenuKit.caretPhase(now) != caret {
            caret = MenuKit.caretPhase(now)
            app.setNeedsRedraw()
        }
        return nil
    }

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        MenuKit.heading(graphics, "Host a Game")

        MenuKit.label(graphics, "Your name", at: Point(nameField.frame.x, 110))
        nameField.draw(graphics, now: app.now)
        if let nameError {
            MenuKit.paragraph(graphics, nameError, at: Point(512, 186), width: 560, size: 15, color: MenuKit.errorColor,
                              maxLines: 2)
        } else {
            let hint = nameNotice ?? (!others.isEmpty ? "Other players see this name; it is fixed now that they joined."
                : nameField.isFocused ? "Press Enter to rename your game." : "Other players see this name.")
            graphics.text(hint, at: Point(512, 186), size: 15, color: MenuKit.hintColor)
        }

        let panel = Self.panel
        MenuKit.panel(graphics, panel)
        graphics.text("Waiting for players…", at: Point(panel.x + 28, panel.y + 18), size: 22, bold: true,
                      color: .white, align: .left)
        let count = min(Self.maxPlayers, others.count + 1)
        graphics.text("\(count) of \(Self.maxPlayers)", at: Point(panel.x + panel.width - 28, panel.y + 22), size: 17,
                      color: MenuKit.hintColor, align: .right)

        var rows: [(name: String, tag: String?, isYou: Bool)] = [(client.name, "Host", true)]
        for player in others.prefix(Self.maxPlayers - 1) { rows.append((player.name, nil, false)) }
        for index in 0..<Self.maxPlayers {
            let row = Rect(x: panel.x + 20, y: panel.y + 62 + Double(index) * 58, width: panel.width - 40, height: 50)
            let filled = index < rows.count
            MenuKit.panel(graphics, row, filled ? Color(255, 255, 255, 30) : Color(0, 0, 0, 40), radius: 10)
            let card = Rect(x: row.x + 14, y: row.y + 7, width: 24.5, height: 36)
            if filled {
                graphics.draw(app.assets.back, in: card)
                let entry = rows[index]
                let size = graphics.text(entry.name, at: Point(card.x + card.width + 16, row.y + 13), size: 20, bold: true,
                                         color: .white, align: .left)
                if entry.isYou {
                    graphics.text("(you)", at: Point(card.x + card.width + 24 + size.width, row.y + 16), size: 16,
                                  color: MenuKit.hintColor, align: .left)
                }
                if let tag = entry.tag {
                    let badge = Rect(x: row.x + row.width - 84, y: row.y + 12, width: 70, height: 26)
                    MenuKit.panel(graphics, badge, Color(255, 214, 90, 230), radius: 8)
                    graphics.text(tag, at: Point(badge.center.x, badge.y + 4), size: 14, bold: true, color: .ink,
                                  shadow: false)
                } else {
                    graphics.text("joined", at: Point(row.x + row.width - 18, row.y + 16), size: 15,
                                  color: Color(170, 240, 170), align: .right)
                }
            } else {
                graphics.draw(app.assets.back, in: card, alpha: 0.25)
                graphics.text("Open seat", at: Point(card.x + card.width + 16, row.y + 14), size: 18,
                              color: Color(255, 255, 255, 110), align: .left, shadow: false)
            }
        }

        graphics.text("On this computer, others choose Join Game and pick \(client.name).", at: Point(512, 550),
                      size: 16, color: .white)
        if let path = client.socketPath {
            graphics.text("Socket: \(path)", at: Point(512, 576), size: 13, color: MenuKit.hintColor)
        }
        if let network = client.network {
            // Which addresses players elsewhere can use, and the code they must type.
            let addresses = network.addresses.prefix(3).joined(separator: "  ·  ")
            // The certificate's short fingerprint: what a joining player's snap remembers, to compare by eye.
            let certificate = client.certificate.map { "  ·  certificate \($0.short)" } ?? ""
            graphics.text("Over the network: \(addresses)\(certificate)", at: Point(512, 600), size: 16, color: .white)
            if let code = network.code {
                graphics.text("Join code: \(code)", at: Point(512, 626), size: 24, bold: true, color: .gold)
            } else {
                graphics.text("No join code (--open): anyone who can reach the port may join", at: Point(512, 628),
                              size: 14, color: MenuKit.hintColor)
            }
        }

        buttons.draw(graphics, app.assets)
        if !buttons[.start].isEnabled {
            graphics.text("Start needs at least one other player", at: Point(632, 708), size: 13,
                          color: MenuKit.hintColor)
        } else {
            graphics.text("Enter starts the game", at: Point(632, 708), size: 13, color: MenuKit.hintColor)
        }
        if let dialog { dialog.draw(graphics, assets: app.assets) }
    }
}
#endif
