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

/// The host's lobby: its name (Enter renames the game, until someone joins: the game
/// listens under the host's name, and renaming it would leave the joined players
/// behind), the players who joined (live), where to join, Start (with at least one
/// other player) and Exit. "Invite over the internet" opens the game again with a room at
/// the relay in the settings (docs/RELAY.md), and the lobby then shows the invitation
/// players paste, with "Copy invitation".
public final class HostLobbyScene: Scene {
    enum Action: Hashable { case start, exit, invite, copy }
    /// Where Start sits (tests click it with a real pointer).
    static let startButtonCenter = Point(632, 694)
    /// Where "Invite over the internet" and, once the room is open, "Copy invitation" sit.
    static let inviteButtonCenter = Point(662, 617)
    enum Pending { case exit }

    private var client: GameClient
    /// The lobby's game: another one once it was opened again (renamed, invited) (tests).
    var game: GameClient { client }
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
    /// The relay's address (HOST:PORT), from the settings file.
    var relayField: TextField
    /// How "Invite over the internet" went, in words: under way, failed, copied.
    private(set) var relayNotice: String?
    private(set) var relayError: String?
    /// What "Copy invitation" last put on the clipboard (tests).
    private(set) var copied: String?
    /// The game being opened again with a room at the relay, off the window's thread.
    private var inviting: Inviting?

    /// The game being opened again through a relay, and the relay's address as typed.
    private struct Inviting {
        let attempt = JoinAttempt()
        let relay: String
    }

    static let maxPlayers = 4
    static let panel = Rect(x: 232, y: 220, width: 560, height: 304)

    /// Windows to open one at a time, each once everyone opened before it is in the lobby
    /// (`snapcards play`): seats go by joining order, so "Player 3" then sits before "Player 4".
    private var launches: [() throws -> Void]
    private var launched = 0

    public init(app: App, client: GameClient, launchInTurn launches: [() throws -> Void] = []) {
        self.client = client
        self.launches = launches
        nameField = .name(client.name, frame: Rect(x: 312, y: 136, width: 400, height: 42))
        buttons.add(.exit, Button("Exit", center: Point(392, 694), width: 200))
        buttons.add(.start, Button("Start", center: Self.startButtonCenter, width: 200))
        buttons[.start].isEnabled = false
        relayField = TextField(text: Settings.load(from: client.directories.settings).relay ?? "",
                               frame: Rect(x: 232, y: 598, width: 290, height: 38), maxLength: 80)
        buttons.add(.invite, Button("Invite over the internet", center: Self.inviteButtonCenter, width: 260))
        buttons.add(.copy, Button("Copy invitation", center: Self.inviteButtonCenter, width: 260))
        showRelayButtons()
    }

    /// "Invite over the internet" on a game that has no room yet (and only with the room
    /// for it on screen: a game on TCP shows its addresses there); "Copy invitation" once it has one.
    private func showRelayButtons() {
        buttons.hidden = []
        if client.invitation == nil { buttons.hidden.insert(.copy) } else { buttons.hidden.insert(.invite) }
        if client.network != nil { buttons.hidden.insert(.invite) }
        if client.network != nil, client.invitation != nil {
            // The addresses take the row: the button goes beside Start.
            buttons[.copy].frame = Rect(center: Point(872, 694), size: Size(200, 44))
        }
        buttons[.invite].isEnabled = inviting == nil && others.isEmpty
    }

    /// The dots of "Opening a room…" while the game is opened again.
    public var isAnimating: Bool { inviting != nil }
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
            if closed { return .show(app.menu()) }
            let action = pending
            pending = nil
            guard choice == .yes, let action else { return nil }
            switch action {
            case .exit: return exit(app: app)
            }
        }
        let wasFocused = nameField.isFocused
        // The game is being opened again: nothing to rename, start or leave meanwhile.
        if inviting != nil { return nil }
        if !buttons.hidden.contains(.invite), relayField.handle(input, app: app) { relayError = nil }
        // Once someone joined, the name is fixed: the field takes no typing.
        if !others.isEmpty, case .press(let point) = input, nameField.frame.contains(point) {
            nameNotice = "Players have joined: the game keeps its name."
            app.setNeedsRedraw()
        } else if others.isEmpty, nameField.handle(input, app: app) {
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
            case .invite?: invite(app: app)
            case .copy?: copyInvitation()
            case nil: break
            }
        case .key(.enter):
            if relayField.isFocused {
                invite(app: app)
            } else if nameField.isFocused || nameField.text != client.name {
                submitName(app: app)
            } else if buttons[.start].isEnabled {
                return start(app: app)
            }
        case .key(.tab):
            nameField.isFocused.toggle()
            relayField.isFocused = false
        case .key(.escape):
            if relayField.isFocused {
                relayField.isFocused = false
            } else if nameField.isFocused {
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
        if let problem = NameRules.problem(name) {
            nameError = problem
            return
        }
        nameField.isFocused = false
        guard name != client.name else {
            nameNotice = nil
            return
        }
        if client.invitation != nil {
            // Renaming opens a new game, which would need a new room and a new invitation.
            nameField.set(client.name)
            nameError = "A game with an invitation keeps its name: the invitation names it"
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
        guard renaming == nil, inviting == nil else { return }
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

    /// "Invite over the internet": the relay's address checked and remembered, then the game
    /// opened again with a room there, off the window's thread (the lobby keeps drawing).
    private func invite(app: App) {
        guard inviting == nil, renaming == nil, client.invitation == nil else { return }
        relayField.isFocused = false
        relayNotice = nil
        let text = relayField.text.trimmingWhitespace()
        guard !text.isEmpty else {
            relayError = "Type the relay's address first (HOST:PORT): whoever runs snapcards relay serve gives it."
            relayField.isFocused = true
            return
        }
        guard others.isEmpty else {
            relayError = "Players have joined: inviting opens the game again, which would send them away."
            return
        }
        let relay: HostPort
        do {
            let (host, port) = try parseHostPort(text, for: .connect)
            relay = HostPort(host: host, port: port)
        } catch {
            relayError = "The relay: " + MenuKit.describe(error).message
            relayField.isFocused = true
            return
        }
        guard let make = client.inviter else { return }
        var settings = Settings.load(from: client.directories.settings)
        if settings.relay != text {
            settings.relay = text
            settings.save(to: client.directories.settings)
        }
        relayError = nil
        relayNotice = "Opening a room at the relay \(text)…"
        let attempt = Inviting(relay: text)
        let logger = app.logger
        attempt.attempt.start { try await make(relay, logger) }
        inviting = attempt
        showRelayButtons()
        app.setNeedsRedraw()
    }

    /// The game with its room, once open; or, when the relay could not be had, the game
    /// opened again as it was and why, in words.
    private func finishInviting(app: App) {
        guard let shown = inviting, let result = shown.attempt.result else { return }
        inviting = nil
        app.setNeedsRedraw()
        switch result {
        case .success(let fresh):
            client = fresh
            players = []
            relayNotice = "Players elsewhere choose Join Game and paste this invitation."
        case .failure(let failed as NoRoomAtRelay):
            client = failed.game
            players = []
            relayNotice = nil
            relayError = Self.relayProblem(failed.error, relay: shown.relay)
        case .failure(let error):
            // Not even the game as it was could be opened again: the lobby says the game closed.
            relayNotice = nil
            relayError = Self.relayProblem(error, relay: shown.relay)
            closed = true
            dialog = Dialog.alert("The game closed", MenuKit.describe(error, hosting: client.name).message)
        }
        showRelayButtons()
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

    /// Puts the invitation on the clipboard, for the player to send to friends.
    private func copyInvitation() {
        guard let invitation = client.invitation?.description else { return }
        if SDL_SetClipboardText(invitation) == 0 {
            copied = invitation
            relayNotice = "Copied: send it to the players (a message, a mail)."
        } else {
            relayError = "The invitation could not be copied: select it from snapcards host --relay instead."
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
        return .show(app.menu())
    }

    public func update(now: Double, app: App) -> SceneChange? {
        finishRenaming(app: app)
        finishInviting(app: app)
        // While it is opened again, the old game's closing is no news.
        if inviting != nil { return nil }
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
            // Inviting opens the game again: only before anyone joined.
            showRelayButtons()
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
        if nameField.isFocused || relayField.isFocused, MenuKit.caretPhase(now) != caret {
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

        graphics.text("On this computer, others choose Join Game and pick \(client.name).", at: Point(512, 530),
                      size: 16, color: .white)
        if let invitation = client.invitation, client.network != nil {
            // The addresses below take the rows: the invitation goes where the socket's path was.
            graphics.text(graphics.fitted(invitation.description, width: 1000, size: 13), at: Point(512, 553), size: 13,
                          color: .gold)
        } else if let path = client.socketPath {
            graphics.text("Socket: \(path)", at: Point(512, 553), size: 13, color: MenuKit.hintColor)
        }
        if client.network == nil { drawRelay(graphics, app: app) }
        if let network = client.network {
            // Which addresses players elsewhere can use, and the code they must type.
            let addresses = network.addresses.prefix(3).joined(separator: "  ·  ")
            // The certificate's short fingerprint: what a joining player's snap remembers, to compare by eye.
            let certificate = client.certificate.map { "  ·  certificate \($0.short)" } ?? ""
            graphics.text("Over the network: \(addresses)\(certificate)", at: Point(512, 586), size: 16, color: .white)
            if let code = network.code {
                graphics.text("Join code: \(code)", at: Point(512, 612), size: 24, bold: true, color: .gold)
            } else {
                graphics.text("No join code (--open): anyone who can reach the port may join", at: Point(512, 614),
                              size: 14, color: MenuKit.hintColor)
            }
        }

        buttons.draw(graphics, app.assets)
        if !buttons[.start].isEnabled {
            graphics.text("Start needs at least one other player", at: Point(632, 722), size: 13,
                          color: MenuKit.hintColor)
        } else {
            graphics.text("Enter starts the game", at: Point(632, 722), size: 13, color: MenuKit.hintColor)
        }
        if let dialog { dialog.draw(graphics, assets: app.assets) }
    }

    /// The relay's row: its address and "Invite over the internet", or the invitation and
    /// "Copy invitation"; under it how that went.
    private func drawRelay(_ graphics: Graphics, app: App) {
        let field = relayField.frame
        if let invitation = client.invitation {
            graphics.text(graphics.fitted(invitation.description, width: 1010, size: 13), at: Point(512, 575), size: 13,
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
        if let relayError {
            MenuKit.paragraph(graphics, relayError, at: Point(512, 642), width: 900, size: 14, color: MenuKit.errorColor,
                              maxLines: 1)
        } else if let relayNotice {
            let dots = inviting == nil ? "" : String(repeating: ".", count: Int(app.now * 3) % 3)
            graphics.text(relayNotice + dots, at: Point(512, 642), size: 14, color: MenuKit.hintColor)
        } else if client.invitation == nil, !others.isEmpty {
            graphics.text("Invite before anyone joins: inviting opens the game again.", at: Point(512, 642), size: 14,
                          color: MenuKit.hintColor)
        }
    }
}
#endif
