#if GUI
import SnapBytes
import SnapPlatform
import SnapTable
import Glibc
import SnapBots
import SnapEngine
import SnapNet
import SnapProtocol
import SnapRelayClient
import SnapRelayProtocol

/// Join a game: your name, the games on this machine and on the local network (found
/// live on a background thread: sockets probed about once a second, LAN announcements
/// heard as they come), an address typed as HOST:PORT, or a host's invitation through a
/// relay (`snap://…`, pasted with Ctrl+V: docs/RELAY.md §5). A game that needs a join code
/// asks for it (and so does an address whose host refuses a missing or wrong code).
/// Choosing one shows "Connecting…" until the host welcomes or refuses this player.
public final class JoinScene: Scene {
    enum Action: Hashable { case connect, back, cancel, joinWithCode, cancelCode }
    enum Field { case name, address }

    private enum State {
        case choosing
        /// The game needs its join code: the field in the overlay.
        case askingCode(Endpoint, label: String, problem: String?)
        /// `GameClient.join` runs on a background thread (connecting may take seconds).
        case connecting(JoinAttempt, label: String, endpoint: Endpoint, since: Double)
        /// Connected; waiting for the host's welcome (or refusal).
        case waiting(GameClient, label: String, endpoint: Endpoint, since: Double)
        /// The game has started: asking its host which seats kept on this computer are away.
        case lookingForSeat(SeatLookup, label: String, endpoint: Endpoint, since: Double)
    }

    private let scanner: HostScanner
    private let directories: UserDirectories
    private var hosts: [Listing] = []
    private var codeField = TextField(text: "", frame: Rect(x: 392, y: 356, width: 240, height: 46), maxLength: 9)
    private var hasScanned = false
    private var nameField: TextField
    private var addressField: TextField
    private var nameError: String?
    private var buttons = ButtonSet<Action>()
    private var dialog: Dialog?
    private var state = State.choosing
    private var hoveredRow: Int?
    private var pressedRow: Int?
    private var caret = -1
    /// Where the last attempt went, to try again under another name.
    private var lastTarget: (endpoint: Endpoint, label: String)?
    /// What each answer in the dialog joins (Yes is the first; a `choose` dialog's options in
    /// order): a free name's variant, a seat kept on this computer, or a watcher's place.
    private var retries: [(Endpoint, String, String, Hello.Role)] = []
    /// "Certificate changed — accept the new one?": the game, its label and code, and the fingerprint.
    private var acceptRetry: (Endpoint, String, String, CertificateFingerprint)?
    /// Fingerprints LAN announcements named, and ones the player accepted, by endpoint.
    private var announced: [String: CertificateFingerprint] = [:]
    private var accepted: [String: CertificateFingerprint] = [:]
    private var lastCode = ""

    static let panel = Rect(x: 172, y: 200, width: 680, height: 352)
    static let rowHeight = 50.0
    static let rowStep = 56.0
    static let visibleRows = 5
    static let overlay = Rect(x: 292, y: 274, width: 440, height: 220)
    /// How long to wait for the host's welcome once connected.
    static let welcomeTimeout = 10.0
    /// The connecting overlay's heading and its way out (LAN.md quotes them).
    static let connectingTitle = "Connecting…", cancelTitle = "Cancel"
    /// Room in the address field for an invitation (about 120 characters with a long relay name).
    static let longestTarget = 300

    public init(app: App, directories: UserDirectories = UserDirectories()) {
        self.directories = directories
        scanner = HostScanner(directory: directories.sockets)
        nameField = .name(Settings.load(from: directories.settings).name, frame: Rect(x: 312, y: 122, width: 400, height: 42))
        addressField = TextField(text: "", frame: Rect(x: 172, y: 602, width: 480, height: 42), maxLength: Self.longestTarget)
        buttons.add(.connect, Button("Connect", center: Point(762, 623), width: 180))
        buttons.add(.back, Button("Back", center: Point(512, 706), width: 180))
        buttons.add(.cancel, Button(Self.cancelTitle, center: Point(Self.overlay.center.x, Self.overlay.y + Self.overlay.height - 44),
                                    width: 160))
        let buttonsY = Self.overlay.y + Self.overlay.height - 44
        buttons.add(.joinWithCode, Button("Join", center: Point(Self.overlay.center.x - 90, buttonsY), width: 150))
        buttons.add(.cancelCode, Button("Cancel", center: Point(Self.overlay.center.x + 90, buttonsY), width: 150))
        buttons.hidden = [.cancel, .joinWithCode, .cancelCode]
        scanner.start()
    }

    deinit { scanner.stop() }

    public var isAnimating: Bool {
        if case .choosing = state { return false }
        return true  // the spinner turns
    }

    public var title: String { "Snap!" }

    /// The dialog's message, while one is shown (tests).
    var dialogMessage: String? { dialog?.message }
    var dialogTitle: String? { dialog?.title }
    /// The address field's text: an address or a pasted invitation (tests).
    var addressText: String { addressField.text }

    private var isBusy: Bool {
        if case .choosing = state { return false }
        return true
    }

    // MARK: - Input

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if var shown = dialog {
            let choice = shown.handle(input)
            dialog = choice == nil ? shown : nil
            if choice != nil, let (endpoint, label, code, fingerprint) = acceptRetry {
                acceptRetry = nil
                if choice == .yes {
                    accepted[endpoint.description] = fingerprint
                    connect(endpoint, label: label, code: code, app: app)
                }
            }
            // "Name taken — join as Ann 2?", "Take back Ann's seat?", "Watch?": an answer joins so.
            if let choice, !retries.isEmpty {
                let answers = retries
                retries = []
                if let index = choice.answerIndex, answers.indices.contains(index) {
                    let (endpoint, label, name, role) = answers[index]
                    nameField.set(name)
                    connect(endpoint, label: label, role: role, app: app, remember: false)
                }
            }
            return nil
        }
        if case .askingCode = state {
            _ = codeField.handle(input)
            codeField.isFocused = true
            switch input {
            case .press(let point): buttons.press(point)
            case .release(let point):
                switch buttons.release(point) {
                case .joinWithCode?: submitCode(app: app)
                case .cancelCode?: cancel()
                default: break
                }
            case .key(.enter): submitCode(app: app)
            case .key(.escape): cancel()
            default: break
            }
            return nil
        }
        if isBusy {
            switch input {
            case .press(let point): buttons.press(point)
            case .release(let point): if buttons.release(point) == .cancel { cancel() }
            case .key(.escape): cancel()
            default: break
            }
            return nil
        }
        // Ctrl+V of an invitation goes to the address field wherever the focus is (a name cannot hold one).
        if case .paste(let pasted) = input, !addressField.isFocused,
           pasted.trimmingWhitespaceAndNewlines().hasPrefix(RelayInvitation.scheme) {
            addressField.set(pasted.trimmingWhitespaceAndNewlines())
            nameField.isFocused = false
            addressField.isFocused = true
            return nil
        }
        let nameChanged = nameField.handle(input)
        if nameChanged { nameError = nil }
        if let rejected = nameField.rejection { nameError = rejected }
        _ = addressField.handle(input)
        switch input {
        case .move(let point):
            let row = row(at: point)
            if row != hoveredRow { hoveredRow = row }
        case .press(let point):
            buttons.press(point)
            pressedRow = row(at: point)
        case .release(let point):
            defer { pressedRow = nil }
            if let action = buttons.release(point) { return perform(action, app: app) }
            if let pressedRow, row(at: point) == pressedRow, pressedRow < hosts.count {
                choose(hosts[pressedRow], app: app)
            }
        case .key(.enter):
            if addressField.isFocused {
                connectToAddress(app: app)
            } else if nameField.isFocused {
                if saveName() { nameField.isFocused = false }
            } else if hosts.count == 1, !hosts[0].info.started {
                choose(hosts[0], app: app)
            }
        case .key(.tab):
            if nameField.isFocused {
                nameField.isFocused = false
                addressField.isFocused = true
            } else {
                addressField.isFocused = false
                nameField.isFocused = true
            }
        case .key(.escape):
            if nameField.isFocused || addressField.isFocused {
                nameField.isFocused = false
                addressField.isFocused = false
            } else {
                return perform(.back, app: app)
            }
        default:
            break
        }
        return nil
    }

    private func perform(_ action: Action, app: App) -> SceneChange? {
        switch action {
        case .connect: connectToAddress(app: app)
        case .back:
            scanner.stop()
            return .show(MenuScene(app: app))
        case .cancel, .cancelCode: cancel()
        case .joinWithCode: submitCode(app: app)
        }
        return nil
    }

    private func row(at point: Point) -> Int? {
        (0..<min(hosts.count, Self.visibleRows)).first { rowFrame($0).contains(point) }
    }

    private func rowFrame(_ index: Int) -> Rect {
        Rect(x: Self.panel.x + 20, y: Self.panel.y + 60 + Double(index) * Self.rowStep, width: Self.panel.width - 40,
             height: Self.rowHeight)
    }

    // MARK: - Joining

    /// The name, checked and remembered; false (with the reason shown) if it cannot be used.
    private func saveName() -> Bool {
        if let problem = MenuKit.nameProblem(nameField.text) {
            nameError = problem
            nameField.isFocused = true
            addressField.isFocused = false
            return false
        }
        var settings = Settings.load(from: directories.settings)
        if settings.name != nameField.text {
            settings.name = nameField.text
            settings.save(to: directories.settings)
        }
        return true
    }

    private func choose(_ host: Listing, app: App) {
        if case .lan(let game) = host, let fingerprint = game.fingerprint { announced[game.endpoint.description] = fingerprint }
        if case .lan(let game) = host, game.needsCode, !game.started, game.players < game.maxPlayers {
            return askCode(game.endpoint, label: "\(game.hostName) on \(game.machine)", problem: nil)
        }
        if host.info.started { return offerStartedGame(host.endpoint, label: host.info.hostName, now: app.now) }
        if host.info.players >= host.info.maxPlayers {
            dialog = Dialog.alert("Game full", "\(host.info.hostName)'s table is full (\(host.info.players) of \(host.info.maxPlayers)).")
            return
        }
        connect(host.endpoint, label: host.info.hostName, app: app)
    }

    private func askCode(_ endpoint: Endpoint, label: String, problem: String?) {
        guard saveName() else { return }
        nameField.isFocused = false
        addressField.isFocused = false
        hoveredRow = nil
        codeField.set("")
        codeField.isFocused = true
        state = .askingCode(endpoint, label: label, problem: problem)
        buttons.hidden = [.cancel]
    }

    private func submitCode(app: App) {
        guard case .askingCode(let endpoint, let label, _) = state else { return }
        guard let code = JoinCode.normalized(codeField.text) else {
            state = .askingCode(endpoint, label: label, problem: "6 characters, as the host's lobby shows it")
            return
        }
        connect(endpoint, label: label, code: code, app: app)
    }

    private func connectToAddress(app: App) {
        let text = addressField.text.trimmingWhitespace()
        guard !text.isEmpty else {
            addressField.isFocused = true
            dialog = Dialog.alert("Which address?", "Type the host's address as HOST:PORT, e.g. 192.168.1.20:7777, "
                                  + "or paste an invitation (Ctrl+V).")
            return
        }
        if text.lowercased().hasPrefix(RelayInvitation.scheme) {
            // The invitation is the trust: its certificate is the only one the host may show.
            do {
                let invitation = try RelayInvitation(parsing: text)
                connect(Endpoint(invitation), label: "the game at \(invitation.relayHost)", code: invitation.code ?? "", app: app)
            } catch {
                addressField.isFocused = true
                dialog = Dialog.alert("Not an invitation", Self.invitationProblem(error))
            }
            return
        }
        do {
            let (host, port) = try parseHostPort(text, for: .connect)
            connect(.tcp(host: host, port: port), label: text, app: app)
        } catch {
            let (title, message) = MenuKit.describe(error)
            dialog = Dialog.alert(title, message)
        }
    }

    /// What is wrong in a pasted invitation, as a sentence.
    static func invitationProblem(_ error: InvitationError) -> String {
        "That is not a whole invitation: \(error.problem). Ask the host to copy it again (Copy invitation)."
    }

    /// `remember`: save the name as this player's (not for a variant offered by "Name taken").
    private func connect(_ endpoint: Endpoint, label: String, code: String = "", role: Hello.Role = .player, app: App,
                         remember: Bool = true) {
        guard remember ? saveName() : MenuKit.nameProblem(nameField.text) == nil else { return }
        nameField.isFocused = false
        addressField.isFocused = false
        hoveredRow = nil
        let attempt = JoinAttempt()
        let name = nameField.text
        lastTarget = (endpoint, label)
        lastCode = code
        var trust = ServerTrust.standard()
        trust.announced = announced[endpoint.description]
        trust.accepting = accepted.removeValue(forKey: endpoint.description)
        attempt.start { [trust, directories] in
            try await GameClient.join(endpoint, name: name, joinCode: code, role: role, trust: trust, directories: directories)
        }
        state = .connecting(attempt, label: label, endpoint: endpoint, since: app.now)
        buttons.hidden = [.joinWithCode, .cancelCode]
    }

    private func cancel() {
        switch state {
        case .choosing: return
        case .askingCode: break
        case .connecting(let attempt, _, _, _): attempt.cancel()
        case .waiting(let client, _, _, _): client.leave()
        case .lookingForSeat: break  // its answer is dropped with the state
        }
        state = .choosing
        buttons.hidden = [.cancel, .joinWithCode, .cancelCode]
    }

    /// A game that started without this player: the host is asked which seats this computer
    /// keeps in it are away (a window that crashed), and `offer` asks the player.
    private func offerStartedGame(_ endpoint: Endpoint, label: String, now: Double) {
        let lookup = SeatLookup(endpoint, name: nameField.text, joinCode: lastCode, directories: directories)
        state = .lookingForSeat(lookup, label: label, endpoint: endpoint, since: now)
        buttons.hidden = [.joinWithCode, .cancelCode]
    }

    /// Takes back an away seat, moves a playing one here (said so in words), or watches.
    private func offer(_ offer: KeptSeatOffer, endpoint: Endpoint, label: String) {
        state = .choosing
        buttons.hidden = [.cancel, .joinWithCode, .cancelCode]
        let (question, answers) = offer.dialog(game: "\(label)'s game", wayOut: "Cancel")
        dialog = question
        retries = answers.map { (endpoint, label, $0.name ?? nameField.text, $0.role) }
    }

    private func fail(_ title: String, _ message: String) {
        state = .choosing
        buttons.hidden = [.cancel, .joinWithCode, .cancelCode]
        dialog = Dialog.alert(title, message)
    }

    /// Why the host turned this player away, in words.
    private func refusal(_ reason: CloseReason?, _ message: String, host: String) -> (String, String) {
        switch reason {
        case .full?: return ("Game full", "\(host)'s table is full.")
        case .gameStarted?: return ("Already playing", "\(host)'s game has already started.")
        case .nameTaken?: return ("Name taken", "Someone called \(nameField.text) has already joined. Change your name and try again.")
        case .badName?: return ("Invalid name", "The host refused the name: \(message).")
        case .versionUnsupported?: return ("Different version", "That game runs another version of Snap!")
        case .hostQuit?, .gameFinished?: return ("Game closed", "\(host) closed the game.")
        case nil:
            // Lost before any welcome: whatever answered is not a Snap! game (or it hung up).
            return ("Cannot join", "\(host) did not let us in: \(MenuKit.shortReason(message)).")
        default: return ("Could not join", MenuKit.sentence(message, after: "Could not join"))
        }
    }

    // MARK: - Frame

    public func update(now: Double, app: App) -> SceneChange? {
        if let found = scanner.take() {
            let changed = !hasScanned || found != hosts
            hosts = found
            hasScanned = true
            if let hovered = hoveredRow, hovered >= hosts.count { hoveredRow = nil }
            if changed { app.setNeedsRedraw() }
        }
        switch state {
        case .choosing, .askingCode, .lookingForSeat:
            break
        case .connecting(let attempt, let label, let endpoint, _):
            guard let result = attempt.result else { break }
            switch result {
            case .success(let client):
                state = .waiting(client, label: label, endpoint: endpoint, since: now)
            case .failure(NetError.untrusted(let refusal)) where refusal.acceptable != nil:
                // The one refusal a player may overrule: after checking with the host.
                fail("Certificate changed", "")
                dialog = Dialog.confirm("Certificate changed", MenuKit.certificateQuestion(refusal), yes: "Accept new", no: "Cancel")
                acceptRetry = (endpoint, label, lastCode, refusal.acceptable!)
            case .failure(NetError.noHost(let why)) where endpoint.isRelayed:
                // "the game at relay.example.org is over or the host is offline", and the relay's other refusals.
                fail("Game not found", MenuKit.sentence(why, after: ""))
            case .failure(let error):
                let (title, message) = MenuKit.describe(error)
                fail(title, message)
            }
        case .waiting(let client, let label, let endpoint, let since):
            _ = client.poll(now: now)
            switch client.session.phase {
            case .lobby, .playing:
                scanner.stop()
                return .show(TableScene(app: app, client: client))
            case .ended(.nameTaken?, _):
                client.leave()
                let taken = nameField.text
                let variant = MenuKit.nextVariant(of: taken)
                fail("Name taken", "")
                dialog = Dialog.confirm("Name taken", "Someone called \(taken) has already joined \(label). Join as \(variant)?",
                                         yes: "Join", no: "Cancel")
                if let target = lastTarget { retries = [(target.endpoint, target.label, variant, .player)] }
            case .ended(.wrongCode?, let message):
                client.leave()
                // Ask (again) for the code: the host said it is missing or wrong.
                askCode(endpoint, label: label, problem: message.hasPrefix("too many") ? MenuKit.sentence(message, after: "Join code")
                        : message.hasPrefix("wrong") ? "That code was wrong. Try again." : nil)
            case .ended(.gameStarted?, _):
                client.leave()
                offerStartedGame(endpoint, label: client.session.welcome?.hostName ?? label, now: now)
            case .ended(let reason, let message):
                client.leave()
                let (title, text) = refusal(reason, message, host: client.session.welcome?.hostName ?? label)
                fail(title, text)
            case .connecting:
                if now - since > Self.welcomeTimeout {
                    client.leave()
                    fail("No answer", "\(label) did not answer. Is it a Snap! game?")
                }
            }
        }
        if case .lookingForSeat(let lookup, let label, let endpoint, _) = state, let found = lookup.offer {
            offer(found, endpoint: endpoint, label: label)
            app.setNeedsRedraw()
        }
        if nameField.isFocused || addressField.isFocused || codeField.isFocused, MenuKit.caretPhase(now) != caret {
            caret = MenuKit.caretPhase(now)
            app.setNeedsRedraw()
        }
        return nil
    }

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        MenuKit.heading(graphics, "Join a Game")

        MenuKit.label(graphics, "Your name", at: Point(nameField.frame.x, 96))
        nameField.draw(graphics, now: app.now)
        if let nameError {
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

        if case .askingCode(_, let label, let problem) = state {
            drawCodePrompt(graphics, app: app, label: label, problem: problem)
        } else if isBusy {
            drawConnecting(graphics, app: app)
        }
        if let dialog { dialog.draw(graphics, assets: app.assets) }
    }

    private func drawList(_ graphics: Graphics, app: App) {
        let panel = Self.panel
        MenuKit.panel(graphics, panel)
        graphics.text("Games here and on the network", at: Point(panel.x + 28, panel.y + 18), size: 22, bold: true,
                      color: .white, align: .left)
        if hasScanned, !hosts.isEmpty {
            let open = hosts.filter { !$0.info.started && $0.info.players < $0.info.maxPlayers }.count
            graphics.text(open == 1 ? "1 open" : "\(open) open", at: Point(panel.x + panel.width - 28, panel.y + 22),
                          size: 17, color: MenuKit.hintColor, align: .right)
        }
        guard hasScanned else {
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
            let info = host.info
            let isFull = !info.started && info.players >= info.maxPlayers
            let isOpen = !info.started && !isFull
            let hovered = hoveredRow == index && isOpen && !isBusy
            MenuKit.panel(graphics, row, hovered ? Color(255, 255, 255, 60) : Color(255, 255, 255, 26), radius: 10)
            if hovered { MenuKit.panel(graphics, Rect(x: row.x, y: row.y + 8, width: 4, height: row.height - 16), .gold, radius: 2) }
            let card = Rect(x: row.x + 14, y: row.y + 7, width: 24.5, height: 36)
            graphics.draw(app.assets.back, in: card, alpha: isOpen ? 1 : 0.4)
            // Names and machines may come from anyone on the network: cut to the room left of "n/4 players".
            let textWidth = row.x + row.width - 330 - (card.x + card.width + 16)
            graphics.text(graphics.fitted(info.hostName, width: textWidth, size: 20, bold: true),
                          at: Point(card.x + card.width + 16, row.y + 5), size: 20, bold: true,
                          color: isOpen ? .white : Color(255, 255, 255, 150), align: .left)
            let whereText: String
            switch host {
            case .local: whereText = "this computer"
            case .lan(let game): whereText = "\(game.address):\(game.port) · \(game.machine)" + (game.needsCode ? " · code" : "")
                + (game.fingerprint.map { " · \($0.short)" } ?? "")
            }
            graphics.text(graphics.fitted(whereText, width: textWidth, size: 13), at: Point(card.x + card.width + 16, row.y + 29),
                          size: 13, color: MenuKit.hintColor, align: .left, shadow: false)
            graphics.text("\(info.players)/\(info.maxPlayers) players", at: Point(row.x + row.width - 210, row.y + 15),
                          size: 17, color: isOpen ? MenuKit.hintColor : Color(210, 228, 210, 140), align: .right)
            let badge = Rect(x: row.x + row.width - 186, y: row.y + 12, width: 96, height: 26)
            let (status, colour, ink): (String, Color, Color) =
                info.started ? ("Started", Color(120, 120, 120, 200), Color(235, 235, 235))
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
        switch state {
        case .choosing, .askingCode: return
        case .connecting(_, let text, _, let start): label = text; since = start
        case .waiting(_, let text, _, let start): label = text; since = start
        case .lookingForSeat(_, let text, _, let start): label = text; since = start
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

extension Endpoint {
    /// A game behind a relay, joined by invitation.
    var isRelayed: Bool { if case .relayed = self { true } else { false } }
}
#endif
