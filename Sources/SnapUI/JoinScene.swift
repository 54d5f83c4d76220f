#if GUI
import SnapBytes
import SnapPlatform
import SnapTable
import Glibc
import SnapBots
import SnapEngine
import SnapNet
import SnapProtocol
import SnapScreens
import SnapRelayClient
import SnapRelayProtocol

/// Join a game, drawn: the name, the games found on this machine and on the local network
/// (sockets probed about once a second, LAN announcements heard as they come, on a
/// background thread), an address or a pasted invitation (docs/RELAY.md §5), the join-code
/// overlay and "Connecting…". Its rules are `JoinModel`'s; this scene maps clicks and keys
/// to the model's intents, reads addresses into endpoints, and carries out the joins the
/// model asks for (off the window's thread), feeding their outcomes back.
public final class JoinScene: Scene {
    enum Action: Hashable { case connect, back, cancel, joinWithCode, cancelCode }

    private let scanner: HostScanner
    private let directories: UserDirectories
    private(set) var model: JoinModel<JoinTarget>
    private var nameField: TextField
    private var addressField: TextField
    private var codeField: TextField
    private var buttons = ButtonSet<Action>()
    /// The model's question, drawn (it keeps which of its buttons is held down).
    private var dialog: Dialog?
    /// The join the model asked for, its client once connected, and the seat lookup under way.
    private var attempt: JoinAttempt?
    private var client: GameClient?
    private var lookup: SeatLookup?
    private var hoveredRow: Int?
    private var pressedRow: Int?
    private var caret = -1

    static let panel = Rect(x: 172, y: 200, width: 680, height: 352)
    static let rowHeight = 50.0
    static let rowStep = 56.0
    static let visibleRows = 5
    static let overlay = Rect(x: 292, y: 274, width: 440, height: 220)
    /// How long to wait for the host's welcome once connected (LAN.md quotes it).
    static let welcomeTimeout = JoinModel<JoinTarget>.welcomeTimeout
    /// The connecting overlay's heading and its way out (LAN.md quotes them).
    static let connectingTitle = "Connecting…", cancelTitle = "Cancel"

    public init(app: App) {
        directories = app.directories
        scanner = HostScanner(directory: directories.sockets)
        model = JoinModel(savedName: app.settings.name, readAddress: Self.read)
        nameField = TextField(model: model.name, frame: Rect(x: 312, y: 122, width: 400, height: 42))
        addressField = TextField(model: model.address, frame: Rect(x: 172, y: 602, width: 480, height: 42))
        codeField = TextField(model: model.code, frame: Rect(x: 392, y: 356, width: 240, height: 46))
        buttons.add(.connect, Button("Connect", center: Point(762, 623), width: 180))
        buttons.add(.back, Button("Back", center: Point(512, 706), width: 180))
        buttons.add(.cancel, Button(Self.cancelTitle, center: Point(Self.overlay.center.x, Self.overlay.y + Self.overlay.height - 44),
                                    width: 160))
        let buttonsY = Self.overlay.y + Self.overlay.height - 44
        buttons.add(.joinWithCode, Button("Join", center: Point(Self.overlay.center.x - 90, buttonsY), width: 150))
        buttons.add(.cancelCode, Button("Cancel", center: Point(Self.overlay.center.x + 90, buttonsY), width: 150))
        showButtons()
        scanner.start()
    }

    deinit { scanner.stop() }

    public var isAnimating: Bool { model.isBusy }  // the spinner turns
    public var title: String { "Snap!" }

    /// The dialog's message, while one is shown (tests).
    var dialogMessage: String? { model.question?.message }
    var dialogTitle: String? { model.question?.title }
    /// The address field's text: an address or a pasted invitation (tests).
    var addressText: String { model.address.text }

    /// An address or an invitation as typed, read into where to connect.
    @Sendable static func read(_ text: String) -> AddressReading<JoinTarget> {
        if text.lowercased().hasPrefix(RelayInvitation.scheme) {
            // The invitation is the trust: its certificate is the only one the host may show.
            do {
                let invitation = try RelayInvitation(parsing: text)
                return .game(JoinTarget(Endpoint(invitation)), label: "the game at \(invitation.relayHost)", code: invitation.code ?? "")
            } catch {
                return .refused(Alert("Not an invitation", invitationProblem(error)), focusAddress: true)
            }
        }
        do {
            let (host, port) = try parseHostPort(text, for: .connect)
            return .game(JoinTarget(.tcp(host: host, port: port)), label: text, code: "")
        } catch {
            let (title, message) = MenuKit.describe(error)
            return .refused(Alert(title, message), focusAddress: false)
        }
    }

    /// What is wrong in a pasted invitation, as a sentence.
    static func invitationProblem(_ error: InvitationError) -> String {
        "That is not a whole invitation: \(error.problem). Ask the host to copy it again (Copy invitation)."
    }

    // MARK: - Input

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if var shown = dialog {
            let choice = shown.handle(input)
            dialog = shown
            guard let choice else { return nil }
            return send(.answer(choice.answerIndex), app: app)
        }
        if case .askingCode = model.phase {
            switch input {
            case .press(let point): buttons.press(point)
            case .release(let point):
                switch buttons.release(point) {
                case .joinWithCode?: return send(.submitCode, app: app)
                case .cancelCode?: return send(.cancel, app: app)
                default: break
                }
            case .key(.enter): return send(.enter, app: app)
            case .key(.escape): return send(.escape, app: app)
            default: if let edit = TextField.edit(for: input) { return send(.edit(.code, edit), app: app) }
            }
            return nil
        }
        if model.isBusy {
            switch input {
            case .press(let point): buttons.press(point)
            case .release(let point): if buttons.release(point) == .cancel { return send(.cancel, app: app) }
            case .key(.escape): return send(.escape, app: app)
            default: break
            }
            return nil
        }
        switch input {
        case .move(let point):
            hoveredRow = row(at: point)
        case .press(let point):
            buttons.press(point)
            pressedRow = row(at: point)
            let field: JoinModel<JoinTarget>.Field? = nameField.frame.contains(point) ? .name
                : addressField.frame.contains(point) ? .address : nil
            return send(.click(in: field), app: app)
        case .release(let point):
            defer { pressedRow = nil }
            switch buttons.release(point) {
            case .connect?: return send(.connect, app: app)
            case .back?: return send(.back, app: app)
            case .cancel?, .cancelCode?: return send(.cancel, app: app)
            case .joinWithCode?: return send(.submitCode, app: app)
            case nil:
                if let pressedRow, row(at: point) == pressedRow { return send(.chooseRow(pressedRow), app: app) }
            }
        case .key(.enter): return send(.enter, app: app)
        case .key(.tab): return send(.tab, app: app)
        case .key(.escape): return send(.escape, app: app)
        default:
            if let edit = TextField.edit(for: input) { return send(.edit(.name, edit), app: app) }
        }
        return nil
    }

    private func row(at point: Point) -> Int? {
        (0..<min(model.hosts.count, Self.visibleRows)).first { rowFrame($0).contains(point) }
    }

    private func rowFrame(_ index: Int) -> Rect {
        Rect(x: Self.panel.x + 20, y: Self.panel.y + 60 + Double(index) * Self.rowStep, width: Self.panel.width - 40,
             height: Self.rowHeight)
    }

    /// Gives the model an intent and carries out what it asks.
    private func send(_ intent: JoinModel<JoinTarget>.Intent, app: App) -> SceneChange? {
        let effects = model.handle(intent, now: app.now)
        return perform(effects, app: app)
    }

    private func perform(_ effects: [JoinModel<JoinTarget>.Effect], app: App) -> SceneChange? {
        var change: SceneChange?
        for effect in effects {
            switch effect {
            case .screen(let other):
                if case .show = other { scanner.stop() }
                change = app.perform([other]) ?? change
            case .join(let request):
                let attempt = JoinAttempt()
                var trust = ServerTrust.standard()
                trust.announced = request.announced
                trust.accepting = request.accepting
                let (games, directories) = (app.games, self.directories)
                attempt.start { [trust] in
                    try await games.join(request.target.endpoint, name: request.name, joinCode: request.code, role: request.role,
                                         trust: trust, directories: directories)
                }
                self.attempt = attempt
            case .cancelJoin:
                attempt?.cancel()
                attempt = nil
                client?.leave()
                client = nil
                lookup = nil
            case .lookUpSeats(let endpoint, let name, let code):
                client = nil
                lookup = SeatLookup(endpoint.endpoint, name: name, joinCode: code, directories: directories)
            case .openTable:
                scanner.stop()
                if let client { change = .show(TableScene(app: app, client: client)) }
                self.client = nil
            }
        }
        sync()
        return change
    }

    /// The drawn fields, buttons and dialog follow the model.
    private func sync() {
        nameField.model = model.name
        addressField.model = model.address
        codeField.model = model.code
        if let question = model.question {
            if dialog?.title != question.title || dialog?.message != question.message { dialog = Dialog(question) }
        } else {
            dialog = nil
        }
        if model.isBusy { hoveredRow = nil }
        showButtons()
    }

    private func showButtons() {
        switch model.phase {
        case .choosing: buttons.hidden = [.cancel, .joinWithCode, .cancelCode]
        case .askingCode: buttons.hidden = [.cancel]
        case .connecting, .waiting, .lookingForSeat: buttons.hidden = [.joinWithCode, .cancelCode]
        }
    }

    // MARK: - Frame

    public func update(now: Double, app: App) -> SceneChange? {
        var change: SceneChange?
        if let found = scanner.take() {
            let listings = found.map(Self.listing)
            let changed = !model.hasScanned || listings != model.hosts
            _ = model.handle(.found(listings), now: now)
            if let hovered = hoveredRow, hovered >= model.hosts.count { hoveredRow = nil }
            if changed { app.setNeedsRedraw() }
        }
        if let result = attempt?.result {
            attempt = nil
            switch result {
            case .success(let connected):
                client = connected
                change = send(.connected, app: app) ?? change
            case .failure(NetError.untrusted(let refusal)) where refusal.acceptable != nil:
                change = send(.connectFailed(.certificateChanged(question: MenuKit.certificateQuestion(refusal),
                                                                 presented: refusal.acceptable!)), app: app) ?? change
            case .failure(NetError.noHost(let why)) where isRelayed:
                change = send(.connectFailed(.relayRefused(why)), app: app) ?? change
            case .failure(let error):
                let (title, message) = MenuKit.describe(error)
                change = send(.connectFailed(.other(Alert(title, message))), app: app) ?? change
            }
        }
        if let client {
            _ = client.poll(now: now)
            switch client.session.phase {
            case .lobby, .playing:
                change = send(.welcomed, app: app) ?? change
            case .ended(let reason, let message):
                client.leave()
                self.client = nil
                change = send(.refused(reason, message: message, hostName: client.session.welcome?.hostName), app: app) ?? change
            case .connecting:
                break
            }
        }
        if let offer = lookup?.offer {
            lookup = nil
            change = send(.seatOffer(offer), app: app) ?? change
            app.setNeedsRedraw()
        }
        change = perform(model.update(now: now), app: app) ?? change
        if nameField.isFocused || addressField.isFocused || codeField.isFocused, MenuKit.caretPhase(now) != caret {
            caret = MenuKit.caretPhase(now)
            app.setNeedsRedraw()
        }
        return change
    }

    /// The game being joined is behind a relay (its refusals are the relay's words).
    private var isRelayed: Bool {
        switch model.phase {
        case .connecting(let target, _, _): target.endpoint.isRelayed
        default: false
        }
    }

    /// A found game as the model lists it.
    static func listing(_ found: Listing) -> JoinListing<JoinTarget> {
        let info = found.info
        switch found {
        case .local:
            return JoinListing(target: JoinTarget(found.endpoint), hostName: info.hostName, place: "this computer", label: info.hostName,
                               players: Int(info.players), maxPlayers: Int(info.maxPlayers), started: info.started)
        case .lan(let game):
            let place = "\(game.address):\(game.port) · \(game.machine)" + (game.needsCode ? " · code" : "")
                + (game.fingerprint.map { " · \($0.short)" } ?? "")
            return JoinListing(target: JoinTarget(game.endpoint), hostName: info.hostName, place: place,
                               label: game.needsCode ? "\(game.hostName) on \(game.machine)" : info.hostName,
                               players: Int(info.players), maxPlayers: Int(info.maxPlayers), started: info.started,
                               needsCode: game.needsCode, fingerprint: game.fingerprint)
        }
    }

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        MenuKit.heading(graphics, "Join a Game")

        MenuKit.label(graphics, "Your name", at: Point(nameField.frame.x, 96))
        nameField.draw(graphics, now: app.now)
        if let nameError = model.nameError {
            graphics.text(nameError, at: Point(512, 170), size: 15, color: MenuKit.errorColor)
        }

        drawList(graphics, app: app)

        MenuKit.label(graphics, "Or connect to an address (HOST:PORT), or paste an invitation",
                      at: Point(addressField.frame.x, 576))
        addressField.draw(graphics, now: app.now)
        if addressField.text.isEmpty, !addressField.isFocused {
            graphics.text("e.g. 192.168.1.20:7777, or Ctrl+V: snap://…", at: Point(addressField.frame.x + 10, addressField.frame.y + 10),
                          size: 18, color: Color(120, 120, 120), align: .left, shadow: false)
        }
        if let invitation = try? RelayInvitation(parsing: addressField.text.trimmingWhitespace()) {
            // The field shows the invitation's end: say what the whole of it is.
            let code = invitation.code.map { ", join code \($0)" } ?? ""
            graphics.text("An invitation through the relay at \(invitation.relayAddress)\(code): Connect joins it.",
                          at: Point(addressField.frame.x, addressField.frame.y + addressField.frame.height + 8), size: 14,
                          color: MenuKit.hintColor, align: .left)
        }
        var visible = buttons
        visible.hidden.formUnion([.cancel, .joinWithCode, .cancelCode])
        visible.draw(graphics, app.assets)

        if case .askingCode(_, let label, let problem) = model.phase {
            drawCodePrompt(graphics, app: app, label: label, problem: problem)
        } else if model.isBusy {
            drawConnecting(graphics, app: app)
        }
        if let dialog { dialog.draw(graphics, assets: app.assets) }
    }

    private func drawList(_ graphics: Graphics, app: App) {
        let panel = Self.panel
        MenuKit.panel(graphics, panel)
        graphics.text("Games here and on the network", at: Point(panel.x + 28, panel.y + 18), size: 22, bold: true,
                      color: .white, align: .left)
        let hosts = model.hosts
        if model.hasScanned, !hosts.isEmpty {
            let open = model.openCount
            graphics.text(open == 1 ? "1 open" : "\(open) open", at: Point(panel.x + panel.width - 28, panel.y + 22),
                          size: 17, color: MenuKit.hintColor, align: .right)
        }
        guard model.hasScanned else {
            graphics.text("Looking for games…", at: Point(panel.center.x, panel.y + 150), size: 20, color: MenuKit.hintColor)
            return
        }
        guard !hosts.isEmpty else {
            graphics.text("No games yet", at: Point(panel.center.x, panel.y + 126), size: 22, bold: true,
                          color: Color(255, 255, 255, 200))
            graphics.text("When someone on this computer chooses Host Game, or a game", at: Point(panel.center.x, panel.y + 166),
                          size: 16, color: MenuKit.hintColor)
            graphics.text("on the local network is announced, it appears here.", at: Point(panel.center.x, panel.y + 188), size: 16,
                          color: MenuKit.hintColor)
            if !scanner.lanAvailable {
                graphics.text("(Not looking on the network: no multicast here. Type HOST:PORT below.)",
                              at: Point(panel.center.x, panel.y + 220), size: 13, color: MenuKit.hintColor)
            }
            return
        }
        for (index, host) in hosts.prefix(Self.visibleRows).enumerated() {
            let row = rowFrame(index)
            let (isFull, isOpen) = (host.isFull, host.isOpen)
            let hovered = hoveredRow == index && isOpen && !model.isBusy
            MenuKit.panel(graphics, row, hovered ? Color(255, 255, 255, 60) : Color(255, 255, 255, 26), radius: 10)
            if hovered { MenuKit.panel(graphics, Rect(x: row.x, y: row.y + 8, width: 4, height: row.height - 16), .gold, radius: 2) }
            let card = Rect(x: row.x + 14, y: row.y + 7, width: 24.5, height: 36)
            graphics.draw(app.assets.back, in: card, alpha: isOpen ? 1 : 0.4)
            // Names and machines may come from anyone on the network: cut to the room left of "n/4 players".
            let textWidth = row.x + row.width - 330 - (card.x + card.width + 16)
            graphics.text(graphics.fitted(host.hostName, width: textWidth, size: 20, bold: true),
                          at: Point(card.x + card.width + 16, row.y + 5), size: 20, bold: true,
                          color: isOpen ? .white : Color(255, 255, 255, 150), align: .left)
            graphics.text(graphics.fitted(host.place, width: textWidth, size: 13), at: Point(card.x + card.width + 16, row.y + 29),
                          size: 13, color: MenuKit.hintColor, align: .left, shadow: false)
            graphics.text("\(host.players)/\(host.maxPlayers) players", at: Point(row.x + row.width - 210, row.y + 15),
                          size: 17, color: isOpen ? MenuKit.hintColor : Color(210, 228, 210, 140), align: .right)
            let badge = Rect(x: row.x + row.width - 186, y: row.y + 12, width: 96, height: 26)
            let (status, colour, ink): (String, Color, Color) =
                host.started ? ("Started", Color(120, 120, 120, 200), Color(235, 235, 235))
                : isFull ? ("Full", Color(220, 140, 60, 230), .white)
                : ("Open", Color(90, 200, 110, 235), .white)
            MenuKit.panel(graphics, badge, colour, radius: 8)
            graphics.text(status, at: Point(badge.center.x, badge.y + 4), size: 14, bold: true, color: ink)
            if isOpen {
                graphics.text("Join ›", at: Point(row.x + row.width - 16, row.y + 14), size: 17, bold: true,
                              color: hovered ? .gold : Color(255, 255, 255, 170), align: .right)
            }
        }
        if hosts.count > Self.visibleRows {
            graphics.text("and \(hosts.count - Self.visibleRows) more", at: Point(panel.center.x, panel.y + panel.height - 2),
                          size: 13, color: MenuKit.hintColor)
        }
    }

    private func drawCodePrompt(_ graphics: Graphics, app: App, label: String, problem: String?) {
        graphics.fill(Rect(x: 0, y: 0, width: logicalSize.width, height: logicalSize.height), Color.dim)
        let box = Self.overlay
        MenuKit.panel(graphics, box, Color(250, 246, 236), radius: 16)
        graphics.text("Join code", at: Point(box.center.x, box.y + 18), size: 26, bold: true, color: .ink, shadow: false)
        graphics.text(problem ?? "\(label) needs the code shown in its lobby.", at: Point(box.center.x, box.y + 54),
                      size: 15, color: problem == nil ? Color(80, 80, 80) : MenuKit.errorColor, shadow: false)
        codeField.draw(graphics, now: app.now)
        buttons[.joinWithCode].draw(graphics, assets: app.assets)
        buttons[.cancelCode].draw(graphics, assets: app.assets)
    }

    private func drawConnecting(_ graphics: Graphics, app: App) {
        let label: String
        let since: Double
        switch model.phase {
        case .choosing, .askingCode: return
        case .connecting(_, let text, let start), .waiting(_, let text, let start), .lookingForSeat(_, let text, let start):
            label = text
            since = start
        }
        graphics.fill(Rect(x: 0, y: 0, width: logicalSize.width, height: logicalSize.height), Color.dim)
        let box = Self.overlay
        MenuKit.panel(graphics, box, Color(250, 246, 236), radius: 16)
        graphics.text(Self.connectingTitle, at: Point(box.center.x, box.y + 22), size: 26, bold: true, color: .ink, shadow: false)
        graphics.text("to \(label)", at: Point(box.center.x, box.y + 60), size: 17, color: Color(80, 80, 80), shadow: false)
        // A ring of dots, one bright dot going round.
        let t = app.now - since
        let centre = Point(box.center.x, box.y + 112)
        for index in 0..<10 {
            let angle = Double(index) / 10 * 2 * .pi - .pi / 2
            let lead = Int(t * 12) % 10
            let age = (index - lead + 10) % 10
            let alpha = UInt8(max(40, 255 - age * 26))
            let dot = Point(centre.x + cos(angle) * 16, centre.y + sin(angle) * 16)
            MenuKit.panel(graphics, Rect(center: dot, size: Size(6, 6)), Color(40, 110, 60, alpha), radius: 3)
        }
        buttons[.cancel].draw(graphics, assets: app.assets)
    }
}

/// Where the Join screen's model says a game is: an endpoint, the same game as another when
/// it is written the same (`unix:…`, `tcp:host:port`, `relay:…/room`), as fingerprints were kept by.
struct JoinTarget: Hashable, Sendable {
    let endpoint: Endpoint

    init(_ endpoint: Endpoint) { self.endpoint = endpoint }

    static func == (a: JoinTarget, b: JoinTarget) -> Bool { a.endpoint.description == b.endpoint.description }
    func hash(into hasher: inout Hasher) { hasher.combine(endpoint.description) }
}

extension Endpoint {
    /// A game behind a relay, joined by invitation.
    var isRelayed: Bool { if case .relayed = self { true } else { false } }
}
#endif
