#if GUI
import SnapScreens
import CSDL2
import Glibc
import Logging
import SnapPlatform
import SnapTable
import SnapBots
import SnapEngine
import SnapNet
import SnapProtocol

/// The host's lobby, drawn: its name, the players who joined (live), where to join, Start
/// and Exit, and "Invite over the internet" (a room at the relay in the settings,
/// docs/RELAY.md), then the invitation players paste, with "Copy invitation". Its rules are
/// `HostLobbyModel`'s; this scene keeps the game (a network object): it tells the model what
/// the game says each frame, maps clicks and keys to the model's intents, does what the model
/// asks of the game, opens games again off the window's thread, and draws.
public final class HostLobbyScene: Scene {
    typealias Action = HostLobbyModel.Action
    /// Where Start sits (tests click it with a real pointer).
    static let startButtonCenter = Point(632, 694)
    /// Where "Invite over the internet" and, once the room is open, "Copy invitation" sit.
    static let inviteButtonCenter = Point(662, 617)

    private var client: GameClient
    /// The lobby's game: another one once it was opened again (renamed, invited) (tests).
    var game: GameClient { client }
    private(set) var model: HostLobbyModel
    private(set) var nameField: TextField
    /// The relay's address (HOST:PORT), from the settings file.
    private(set) var relayField: TextField
    private var buttons = ButtonSet<Action>()
    /// The model's dialog, drawn (it keeps which of its buttons is held down).
    private var dialog: Dialog?
    private var caret = -1

    var nameNotice: String? { model.nameNotice }
    /// How "Invite over the internet" went, in words: under way, failed, copied.
    var relayNotice: String? { model.relayNotice }
    var relayError: String? { model.relayError }
    /// What "Copy invitation" last put on the clipboard (tests).
    var copied: String? { model.copied }

    /// A rename under way: the new game is opened off the window's thread (it binds its
    /// socket and starts its journal), and the lobby keeps drawing meanwhile; then the
    /// new game, until the model says whether it replaces the old one.
    private var renaming: (attempt: JoinAttempt, name: String)?
    private var reopened: GameClient?
    /// The game being opened again with a room at the relay, off the window's thread, and
    /// the relay's address as typed.
    private var inviting: (attempt: JoinAttempt, relay: String)?

    static let panel = Rect(x: 232, y: 220, width: 560, height: 304)

    /// Windows to open one at a time, each once everyone opened before it is in the lobby
    /// (`snapcards play`; the model says which is due).
    private let launches: [() throws -> Void]

    public init(app: App, client: GameClient, launchInTurn launches: [() throws -> Void] = []) {
        self.client = client
        self.launches = launches
        model = HostLobbyModel(game: Self.snapshot(of: client),
                               savedRelay: app.settings.relay ?? "",
                               launches: launches.count)
        nameField = TextField(model: model.name, frame: Rect(x: 312, y: 136, width: 400, height: 42))
        relayField = TextField(model: model.relay, frame: Rect(x: 232, y: 598, width: 290, height: 38))
        buttons.add(.exit, Button("Exit", center: Point(392, 694), width: 200))
        buttons.add(.start, Button("Start", center: Self.startButtonCenter, width: 200))
        buttons.add(.invite, Button("Invite over the internet", center: Self.inviteButtonCenter, width: 260))
        buttons.add(.copy, Button("Copy invitation", center: Self.inviteButtonCenter, width: 260))
        sync()
    }

    /// What the game says now, for the model.
    static func snapshot(of client: GameClient) -> HostLobbyModel.Game {
        let phase: HostLobbyModel.Game.Phase
        switch client.session.phase {
        case .playing: phase = .playing
        case .ended(_, let message): phase = .ended(message: message)
        default: phase = .waiting
        }
        return HostLobbyModel.Game(
            name: client.name,
            players: client.session.lobby.map { .init(id: Int($0.id), name: $0.name, ready: $0.ready) },
            me: Int(client.session.welcome?.playerID ?? 0),
            phase: phase,
            socketPath: client.socketPath,
            network: client.network.map { .init(addresses: $0.addresses, code: $0.code, certificate: client.certificate?.short) },
            invitation: client.invitation.map { .init(text: $0.description, code: $0.code) },
            canInvite: client.hosting != nil)
    }

    /// The dots of "Opening a room…" while the game is opened again.
    public var isAnimating: Bool { model.isInviting }
    public var title: String { "Snap! — \(client.name) (host)" }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if var shown = dialog {
            let choice = shown.handle(input)
            dialog = shown
            guard let choice else { return nil }
            return send(.answer(yes: choice == .yes), app: app)
        }
        switch input {
        case .press(let point):
            // The game being opened again: nothing to click meanwhile.
            if !model.isInviting { buttons.press(point) }
            let field: HostLobbyModel.Field? = nameField.frame.contains(point) ? .name
                : relayField.frame.contains(point) ? .relay : nil
            return send(.press(field), app: app)
        case .release(let point):
            guard !model.isInviting, let action = buttons.release(point) else { return nil }
            return send(.choose(action), app: app)
        case .key(.enter): return send(.enter, app: app)
        case .key(.tab): return send(.tab, app: app)
        case .key(.escape): return send(.escape, app: app)
        default:
            guard let edit = TextField.edit(for: input) else { return nil }
            return send(.edit(edit), app: app)
        }
    }

    private func send(_ intent: HostLobbyModel.Intent, app: App) -> SceneChange? {
        let before = model
        let effects = model.handle(intent, now: app.now)
        if model != before { app.setNeedsRedraw() }
        sync()
        return perform(effects, app: app)
    }

    /// The fields, the buttons and the dialog as the model has them.
    private func sync() {
        nameField.model = model.name
        relayField.model = model.relay
        buttons.hidden = []
        if !model.showsCopy { buttons.hidden.insert(.copy) }
        if !model.showsInvite { buttons.hidden.insert(.invite) }
        if model.game.network != nil, model.game.invitation != nil {
            // The addresses take the row: the button goes beside Start.
            buttons[.copy].frame = Rect(center: Point(872, 694), size: Size(200, 44))
        }
        buttons[.invite].isEnabled = model.canInvite
        buttons[.start].isEnabled = model.canStart
        switch model.dialog {
        case nil:
            dialog = nil
        case .confirmExit?:
            if dialog?.title != "Close the game?" {
                dialog = Dialog.confirm("Close the game?", "The players who joined will be sent back.", yes: "Close", no: "Stay")
            }
        case .closed(let alert)?:
            if dialog?.title != alert.title || dialog?.message != alert.message { dialog = Dialog.alert(alert.title, alert.message) }
        }
    }

    /// Does what the model asked: of the game here, the rest through `app`.
    private func perform(_ effects: [ScreenEffect], app: App) -> SceneChange? {
        var change: SceneChange?
        for effect in effects {
            switch effect {
            case .game(let request):
                if let asked = perform(request, app: app) { change = asked }
            case .copyToClipboard(let text):
                if let asked = send(.clipboardTook(app.copyToClipboard(text)), app: app) { change = asked }
            default:
                if let asked = app.perform([effect]) { change = asked }
            }
        }
        return change
    }

    private func perform(_ request: GameRequest, app: App) -> SceneChange? {
        switch request {
        case .start:
            client.start()
        case .openTable:
            return .show(TableScene(app: app, client: client))
        case .leave:
            client.leave()
        case .reopen(let name):
            let attempt = JoinAttempt()
            let (games, hosting, directories, logger) = (app.games, client.hosting, client.directories, app.logger)
            attempt.start {
                if let hosting { return try await games.hostAgain(hosting, as: name, logger: logger) }
                return try await games.host(name: name, directories: directories, logger: logger)
            }
            renaming = (attempt, name)
        case .switchToReopened:
            guard let fresh = reopened else { break }
            reopened = nil
            client.leave()
            client = fresh
            app.setTitle(title)
        case .leaveReopened:
            reopened?.leave()
            reopened = nil
        case .openRoom(let text):
            let relay: HostPort
            do {
                let (host, port) = try parseHostPort(text, for: .connect)
                relay = HostPort(host: host, port: port)
            } catch {
                return send(.roomAddress(problem: "The relay: " + MenuKit.describe(error).message), app: app)
            }
            guard let hosting = client.hosting else { break }
            let attempt = JoinAttempt()
            let (games, logger) = (app.games, app.logger)
            attempt.start { try await games.invite(hosting, through: relay, logger: logger) }
            inviting = (attempt, text)
            return send(.roomAddress(problem: nil), app: app)
        case .launch(let index):
            do { try launches[index]() } catch { app.logger.warning("a window did not open: \(error)") }
        }
        return nil
    }

    /// The renamed game, once it is open (or why not).
    private func finishRenaming(app: App) -> SceneChange? {
        guard let (attempt, name) = renaming, let result = attempt.result else { return nil }
        renaming = nil
        switch result {
        case .success(let fresh):
            reopened = fresh
            return send(.reopened(Self.snapshot(of: fresh)), app: app)
        case .failure(let error):
            return send(.reopenFailed(MenuKit.describe(error, hosting: name).message), app: app)
        }
    }

    /// The game with its room, once open; or, when the relay could not be had, the game
    /// opened again as it was and why, in words.
    private func finishInviting(app: App) -> SceneChange? {
        guard let (attempt, relay) = inviting, let result = attempt.result else { return nil }
        inviting = nil
        switch result {
        case .success(let fresh):
            client = fresh
            return send(.invited(Self.snapshot(of: fresh)), app: app)
        case .failure(let failed as NoRoomAtRelay):
            client = failed.game
            return send(.noRoom(Self.relayProblem(failed.error, relay: relay), Self.snapshot(of: failed.game)), app: app)
        case .failure(let error):
            // Not even the game as it was could be opened again: the lobby says the game closed.
            return send(.gameLost(relayError: Self.relayProblem(error, relay: relay),
                                  message: MenuKit.describe(error, hosting: client.name).message), app: app)
        }
    }

    /// Why there is no room at `relay`, in words.
    static func relayProblem(_ error: Error, relay: String) -> String {
        if case NetError.cannotConnect(_, let why)? = error as? NetError {
            return "No relay answered at \(relay) (\(Wording.shortReason(why)))."
        }
        if case NetError.noHost(let why)? = error as? NetError {
            return Wording.sentence(why, after: "")
        }
        return "No room at the relay \(relay): " + MenuKit.describe(error).message
    }

    public func update(now: Double, app: App) -> SceneChange? {
        if let change = finishRenaming(app: app) { return change }
        if let change = finishInviting(app: app) { return change }
        // While it is opened again, the old game is not asked (its closing is no news).
        if !model.isInviting {
            _ = client.poll(now: now)
            if let change = send(.observed(Self.snapshot(of: client)), app: app) { return change }
        }
        if nameField.isFocused || relayField.isFocused, MenuKit.caretPhase(now) != caret {
            caret = MenuKit.caretPhase(now)
            app.setNeedsRedraw()
        }
        return nil
    }

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        MenuKit.heading(graphics, "Host a Game")
        let game = model.game

        MenuKit.label(graphics, "Your name", at: Point(nameField.frame.x, 110))
        nameField.draw(graphics, now: app.now)
        if let nameError = model.nameError {
            MenuKit.paragraph(graphics, nameError, at: Point(512, 186), width: 560, size: 15, color: MenuKit.errorColor,
                              maxLines: 2)
        } else {
            graphics.text(model.nameHint, at: Point(512, 186), size: 15, color: MenuKit.hintColor)
        }

        let panel = Self.panel
        let maxPlayers = HostLobbyModel.maxPlayers
        MenuKit.panel(graphics, panel)
        graphics.text("Waiting for players…", at: Point(panel.x + 28, panel.y + 18), size: 22, bold: true,
                      color: .white, align: .left)
        graphics.text("\(model.seatsTaken) of \(maxPlayers)", at: Point(panel.x + panel.width - 28, panel.y + 22), size: 17,
                      color: MenuKit.hintColor, align: .right)

        var rows: [(name: String, tag: String?, isYou: Bool)] = [(game.name, "Host", true)]
        for player in model.others.prefix(maxPlayers - 1) { rows.append((player.name, nil, false)) }
        for index in 0..<maxPlayers {
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

        graphics.text("On this computer, others choose Join Game and pick \(game.name).", at: Point(512, 530),
                      size: 16, color: .white)
        if let invitation = game.invitation, game.network != nil {
            // The addresses below take the rows: the invitation goes where the socket's path was.
            graphics.text(graphics.fitted(invitation.text, width: 1000, size: 13), at: Point(512, 553), size: 13,
                          color: .gold)
        } else if let path = game.socketPath {
            graphics.text("Socket: \(path)", at: Point(512, 553), size: 13, color: MenuKit.hintColor)
        }
        if let network = game.network {
            // Which addresses players elsewhere can use, and the code they must type.
            let addresses = network.addresses.prefix(3).joined(separator: "  ·  ")
            // The certificate's short fingerprint: what a joining player's snap remembers, to compare by eye.
            let certificate = network.certificate.map { "  ·  certificate \($0)" } ?? ""
            graphics.text("Over the network: \(addresses)\(certificate)", at: Point(512, 586), size: 16, color: .white)
            if let code = network.code {
                graphics.text("Join code: \(code)", at: Point(512, 612), size: 24, bold: true, color: .gold)
            } else {
                graphics.text("No join code (--open): anyone who can reach the port may join", at: Point(512, 614),
                              size: 14, color: MenuKit.hintColor)
            }
        } else {
            drawRelay(graphics, app: app)
        }

        buttons.draw(graphics, app.assets)
        graphics.text(model.startHint, at: Point(632, 722), size: 13, color: MenuKit.hintColor)
        if let dialog { dialog.draw(graphics, assets: app.assets) }
    }

    /// The relay's row: its address and "Invite over the internet", or the invitation and
    /// "Copy invitation"; under it how that went.
    private func drawRelay(_ graphics: Graphics, app: App) {
        let field = relayField.frame
        if let invitation = model.game.invitation {
            graphics.text(graphics.fitted(invitation.text, width: 1010, size: 13), at: Point(512, 575), size: 13,
                          color: .gold)
            if let code = invitation.code {
                graphics.text("Join code \(code), in the invitation", at: Point(field.x, field.y + 10), size: 15,
                              color: MenuKit.hintColor, align: .left)
            }
        } else {
            MenuKit.label(graphics, "Over the internet, through a relay", at: Point(field.x, 574))
            relayField.draw(graphics, now: app.now)
            if relayField.text.isEmpty, !relayField.isFocused {
                graphics.text("relay HOST:PORT", at: Point(field.x + 10, field.y + 9), size: 18, color: Color(120, 120, 120),
                              align: .left, shadow: false)
            }
        }
        if let relayError = model.relayError {
            MenuKit.paragraph(graphics, relayError, at: Point(512, 642), width: 900, size: 14, color: MenuKit.errorColor,
                              maxLines: 1)
        } else if let relayNotice = model.relayNotice {
            let dots = model.isInviting ? String(repeating: ".", count: Int(app.now * 3) % 3) : ""
            graphics.text(relayNotice + dots, at: Point(512, 642), size: 14, color: MenuKit.hintColor)
        } else if let hint = model.relayHint {
            graphics.text(hint, at: Point(512, 642), size: 14, color: MenuKit.hintColor)
        }
    }
}
#endif
