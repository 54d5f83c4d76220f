#if GUI
import Glibc
import SnapPlatform
import SnapTable
import SnapEngine
import SnapNet
import SnapProtocol
import SnapScreens
import SnapSession

/// The game table: every seat's piles, the status line, Snap!, Exit and (on the host)
/// Next Round. Each poll of the `GameClient`'s session goes to the `TableModel` (SnapTable),
/// which turns events into a timeline of flights and effects, so the drawn piles lag the
/// session's `TableView` while cards are in the air; this scene draws the model and sends
/// intents. The host decides every rule.
public final class TableScene: Scene {
    let client: GameClient
    /// Everything the table shows and how it moves; this scene draws it and turns clicks into intents.
    let model = TableModel()
    var exitButton = Button("Exit", center: TableLayout.exitCenter, width: 130)
    var nextRoundButton = Button("Next Round", center: TableLayout.nextRoundCenter, width: 210)
    /// Once a round or the match is over: this player's statistics (below Next Round, or in its place).
    var statisticsButton = Button("Statistics", center: TableLayout.nextRoundCenter, width: 210)
    var snapHeld = false
    var snapPressedUntil = -1.0
    var dialog: Dialog?
    private var dialogGoesToMenu = false
    /// "Name taken — join as Ann 2?", "Take back Ann's seat?", "Watch?": the name each
    /// answer joins again with, and as what (Yes is the first; a `choose` dialog's options in order).
    private var retries: [(name: String, role: Hello.Role)] = []
    /// Asking the host which seats kept on this computer are away (the game started without this window).
    private var seatLookup: SeatLookup?
    /// Joining the same game again (another name, a kept seat, or to watch), off this
    /// thread: the window keeps drawing while it connects.
    private var rejoining: (attempt: JoinAttempt, label: String)?
    /// `closing(.gameFinished, message)`: the table stays, with this in the status line.
    var gameOver: String?
    private var endingHandled = false
    private var wasMyTurn = false
    private var titleAlert = false
    private var dealSoundOn = false
    var lastNow = 0.0
    /// The latest verdict on the host's deal and until when it shows ("deal verified"
    /// briefly; a mismatch stays up).
    var dealNotice: (verdict: DealVerdict, until: Double)?
    private var verdictsShown = 0

    public init(app: App, client: GameClient) {
        self.client = client
        model.watching = client.role == .watcher
        lastNow = app.now
        // The scene before this one may have drained the game's start (and perhaps the deal).
        model.receive([], session: client.session, now: lastNow)
        // "Card shown" is when the frame that first drew its face was presented.
        app.afterPresent.append { [weak self] shownAt in self?.reportFacesShown(at: shownAt) }
    }

    private func reportFacesShown(at time: Double) {
        guard !model.referencesDrawn.isEmpty else { return }
        for reference in model.referencesDrawn {
            client.referenceShown(round: reference.round, turn: reference.turn, at: time)
        }
        model.referencesDrawn = []
    }

    // MARK: - For tests and scripted play

    /// My seat at the table (always drawn at the bottom); nil before the game starts.
    public var mySeat: Seat? { client.session.seat }

    /// The closed pile of table seat `seat`, on screen: click its centre to turn a card.
    public func pileFrame(for seat: Seat) -> Rect {
        TableLayout.closedHitRect(seat.onScreen(of: mySeat ?? .bottom))
    }

    /// The round Snap! button (it is hidden while I have no cards).
    public var snapButtonFrame: Rect { TableLayout.snapButtonFrame }

    public var exitButtonFrame: Rect { exitButton.frame }

    /// Cards still fly or lines are still queued: the table lags the host.
    public var isCatchingUp: Bool { !model.isIdle }

    /// The host's Next Round button, while it is shown.
    public var nextRoundButtonFrame: Rect? { showsNextRound ? nextRoundButton.frame : nil }

    /// The line in the middle of the table, as drawn.
    public var statusLine: String {
        if let gameOver { return "Game over — " + gameOver }
        switch client.session.phase {
        case .connecting: return "Connecting…"
        case .lobby: return "Waiting for the host to start…"
        case .playing, .ended:
            guard model.started else { return "Waiting for the host to start…" }
            if client.link.reconnecting { return "Connection lost — reconnecting…" }
            if let seat = mySeat, client.session.away.contains(seat), gameOver == nil {
                return "Away — click your pile to play again"
            }
            if let notice = activeNotice { return notice.text }
            // The turn timer's last seconds: the host turns for whoever lets it run out.
            if let seconds = turnCountdown { return model.visual.status + " — \(seconds) s" }
            return model.visual.status
        }
    }

    /// Seconds left on the active player's turn timer, in its last five seconds.
    var turnCountdown: Int? {
        guard gameOver == nil, case .playing = client.session.phase else { return nil }
        return client.session.turnCountdown(now: .seconds(lastNow))
    }

    // MARK: - Scene

    public var title: String {
        (titleAlert ? "Your turn — " : "") + "Snap! — \(client.name)" + (client.isHost && !client.isSolo ? " (host)" : "")
    }

    public var isAnimating: Bool {
        model.isAnimating || snapPressedUntil > lastNow || turnCountdown != nil || activeNotice != nil
            || (dealNotice.map { $0.until.isFinite && $0.until > lastNow } ?? false)  // to take a brief one down
            || !client.session.awaySince.isEmpty
    }

    /// A notice over the status line ("Too late!"), while it lasts.
    var activeNotice: TableVisual.Notice? {
        guard let notice = model.visual.notice, notice.until > lastNow, gameOver == nil else { return nil }
        return notice
    }

    /// The table as the host has it (the session's mirror); the model only holds what is drawn.
    var table: TableView? { client.session.table }

    private var isPlaying: Bool {
        guard gameOver == nil, client.session.phase == .playing, let table else { return false }
        return table.phase == .playing
    }

    /// I may call Snap!: playing and holding cards.
    var canSnap: Bool {
        guard isPlaying, let table, let seat = mySeat else { return false }
        return table[seat].isPresent && table[seat].hasCards
    }

    /// The Snap! button shows while I hold cards in a round under way (during the deal too,
    /// though a call only counts once the cards are out).
    var showsSnap: Bool {
        guard model.started, gameOver == nil, client.session.phase == .playing, let table, let seat = mySeat else { return false }
        if case .roundOver = table.phase { return false }
        return table[seat].isPresent && table[seat].hasCards
    }

    package var showsNextRound: Bool {
        guard client.isHost, gameOver == nil, client.session.phase == .playing, let table else { return false }
        if case .roundOver = table.phase { return true }
        return false
    }

    /// A round or the match is over and the table waits: the Statistics button shows (the
    /// screen's Back comes back here; meanwhile the link keeps what the host sends).
    var showsStatistics: Bool {
        guard dialog == nil, rejoining == nil, seatLookup == nil, client.role == .player else { return false }
        if gameOver != nil { return true }
        guard client.session.phase == .playing, model.isIdle, let table, case .roundOver = table.phase else { return false }
        return true
    }

    /// The button where it shows now.
    var placedStatisticsButton: Button {
        var button = statisticsButton
        button.frame = Rect(center: statisticsCenter, size: Size(button.frame.width, button.frame.height))
        return button
    }

    /// Below Next Round when the host has it, else where it would be.
    var statisticsCenter: Point {
        showsNextRound ? TableLayout.nextRoundCenter + Point(0, 56) : TableLayout.nextRoundCenter
    }

    /// The Statistics screen for this table's player, over this computer's journals (a host's
    /// match among them); its Back comes back to this table.
    private func showStatistics(app: App) -> SceneChange {
        app.audio.stopDealing()
        return .show(StatisticsScene(app: app, player: client.name, directory: client.directories.journals, back: self))
    }

    private var isMyTurn: Bool {
        guard isPlaying, let table, let seat = mySeat else { return false }
        return table.active == seat && !table.hasTurned
    }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if let (attempt, _) = rejoining {
            // Esc gives up on the join; anything else waits for it.
            guard case .key(.escape) = input else { return nil }
            attempt.cancel()
            rejoining = nil
            return toMenu(app: app, leaving: false)
        }
        if var shown = dialog {
            guard let choice = shown.handle(input) else {
                dialog = shown
                return nil
            }
            dialog = nil
            if !retries.isEmpty {
                let answers = retries
                retries = []
                if let index = choice.answerIndex, answers.indices.contains(index) {
                    return joinAgain(as: answers[index].name, role: answers[index].role, app: app)
                }
            }
            if dialogGoesToMenu { return toMenu(app: app, leaving: false) }
            return choice == .yes ? toMenu(app: app, leaving: true) : nil
        }
        switch input {
        case .press(let point):
            if exitButton.contains(point) {
                exitButton.isPressed = true
            } else if showsNextRound, nextRoundButton.contains(point) {
                nextRoundButton.isPressed = true
            } else if showsStatistics, placedStatisticsButton.contains(point) {
                statisticsButton.isPressed = true
            } else if showsSnap, hitsSnapButton(point) {
                snapHeld = true
                snap(app: app)
            } else if let seat = mySeat, pileFrame(for: seat).contains(point) {
                turn(app: app)
            }
        case .release(let point):
            snapHeld = false
            if exitButton.isPressed {
                exitButton.isPressed = false
                if exitButton.contains(point) { return askExit(app: app) }
            }
            if nextRoundButton.isPressed {
                nextRoundButton.isPressed = false
                if showsNextRound, nextRoundButton.contains(point) { client.nextRound() }
            }
            if statisticsButton.isPressed {
                statisticsButton.isPressed = false
                if showsStatistics, placedStatisticsButton.contains(point) { return showStatistics(app: app) }
            }
        case .key(.space):
            turn(app: app)
        case .key(.s):
            if showsSnap {
                snapPressedUntil = app.now + 0.15
                snap(app: app)
            }
        case .key(.enter):
            if showsNextRound { client.nextRound() }
        case .key(.escape):
            return askExit(app: app)
        case .key(.m):
            app.audio.isMuted.toggle()
        default:
            break
        }
        return nil
    }

    private func hitsSnapButton(_ point: Point) -> Bool {
        let d = point - snapButtonFrame.center
        return d.x * d.x + d.y * d.y <= 60 * 60
    }

    /// Snap!, timed from the press itself (the input event's time), not from this frame.
    private func snap(app: App) {
        guard canSnap else { return }
        client.snap(now: app.inputTime)
    }

    /// A click on my pile (or Space) on my turn: send the intent and start the flip at once.
    private func turn(app: App) {
        // Away, a click on my pile out of turn tells the host I am back (the turn itself is ignored).
        if let seat = mySeat, client.session.away.contains(seat), !isMyTurn {
            client.send(.turn, now: app.now)
            return
        }
        guard isMyTurn, model.turnRequestedAt == nil, !model.isDealing, let table, let seat = mySeat,
              table[seat].closedCount > 0 else { return }
        client.send(.turn, now: app.now)
        model.requestTurn(now: app.now)
    }

    /// Back to the main menu; `leaving`: say goodbye to the host first (a host ends the game).
    /// `notice`: why, shown on the menu.
    private func toMenu(app: App, leaving: Bool, notice: (title: String, message: String)? = nil) -> SceneChange {
        if leaving { client.leave() }
        app.audio.stopDealing()
        model.stop()
        return .show(app.menu(notice: notice.map { Alert($0.title, $0.message) }))
    }

    /// "Ann's game", or "The game" before the host's welcome named it.
    private var gameName: String {
        client.session.welcome.map { "\($0.hostName)'s game" } ?? "The game"
    }

    private func askExit(app: App) -> SceneChange? {
        if gameOver != nil { return toMenu(app: app, leaving: true) }
        if client.isSolo {
            dialog = Dialog.confirm("Leave the table?", "This ends your game against the computer.", yes: "Leave", no: "Stay")
        } else if client.isHost {
            dialog = Dialog.confirm("End game?", "This ends the game for all other players.", yes: "End game", no: "Stay")
        } else {
            dialog = Dialog.confirm("Leave game?", "You will leave the table.", yes: "Leave", no: "Stay")
        }
        dialogGoesToMenu = false
        return nil
    }

    public func update(now: Double, app: App) -> SceneChange? {
        lastNow = now
        if rejoining != nil { return finishRejoining(app: app) }
        if let offer = seatLookup?.offer {
            seatLookup = nil
            offerStartedGame(offer)
            app.setNeedsRedraw()
        }
        let batches = client.poll(now: now)
        if !batches.isEmpty { app.setNeedsRedraw() }
        model.receive(batches, session: client.session, now: now)
        if let verdict = client.session.dealVerdicts.dropFirst(verdictsShown).last {
            dealNotice = (verdict, verdict.isMismatch ? .infinity : now + 4)
            app.setNeedsRedraw()
        }
        verdictsShown = client.session.dealVerdicts.count
        model.advance(to: now, play: { app.audio.play($0) })
        updateDealingSound(now: now, audio: app.audio)
        // Nothing moving: the drawn table must be the session's mirror of the host's.
        if model.started, let truth = client.session.table, model.reconcile(with: truth) { app.setNeedsRedraw() }
        alertIfMyTurn(app: app)
        let change = checkEnding(app: app)
        noteVisibleChanges(app: app, fromMessage: !batches.isEmpty)
        return change
    }

    /// What the table shows that a player acts on, as last noted: the deal under way, whose
    /// turn it is, the status line (turns, verdicts, round ends, away and back), the deal's
    /// verdict and who is away.
    private var shown: [String: String] = [:]

    /// Each visible change found in this pass goes to the app (`--frame-log`), which holds
    /// it to being on screen in this pass's frame.
    private func noteVisibleChanges(app: App, fromMessage: Bool) {
        guard app.logsFrames, model.started else { return }
        let away = client.session.away.map { model.name($0) }.sorted()
        let now: [String: String] = [
            "deal": model.isDealing ? "dealing round \(model.visual.round)" : "deal finished round \(model.visual.round)",
            "active": "active \(model.visual.active.map { model.name($0) } ?? "nobody")",
            "status": "status \(statusLine)",
            "verdict": "deal notice \(dealNotice.flatMap { $0.until > lastNow ? "\($0.verdict)" : nil } ?? "none")",
            "away": "away \(away.isEmpty ? "nobody" : away.joined(separator: ", "))",
        ]
        for key in now.keys.sorted() where shown[key] != now[key] {
            app.noteChange(now[key]!, fromMessage: fromMessage)
        }
        shown = now
    }

    private func updateDealingSound(now: Double, audio: Audio) {
        let dealing = model.flights.contains { $0.kind == .deal && $0.start <= now }
        if dealing, !audio.isDealing, !audio.isMuted {
            audio.startDealing()
            dealSoundOn = true
        } else if !dealing, dealSoundOn {
            audio.stopDealing()
            dealSoundOn = false
        }
    }

    /// An unfocused window flashes and says so in its title when my turn comes.
    private func alertIfMyTurn(app: App) {
        let mine = isMyTurn
        let focused = app.graphics.hasFocus
        if mine, !wasMyTurn, !focused {
            app.graphics.flash()
            titleAlert = true
            app.setTitle(title)
        } else if titleAlert, focused || !mine {
            titleAlert = false
            app.setTitle(title)
        }
        wasMyTurn = mine
    }

    private func checkEnding(app: App) -> SceneChange? {
        guard !endingHandled else { return nil }
        var ended: (reason: CloseReason?, message: String)?
        if case .ended(let reason, let message) = client.session.phase {
            ended = (reason, message)
        } else if let lost = client.link.connectionLost {
            ended = (nil, lost)
        }
        guard let (reason, message) = ended else { return nil }
        endingHandled = true
        app.setNeedsRedraw()
        switch reason {
        case .hostQuit?:
            // The menu says why this player landed there.
            let why = message.isEmpty || message == "the host ended the game" ? "the host left" : message
            return toMenu(app: app, leaving: false, notice: ("Game over", "\(gameName) ended: \(why)."))
        case .gameFinished?:
            gameOver = message.isEmpty ? "the game has ended" : message
            model.dropTurnRequest()
        case nil:
            app.audio.stopDealing()
            dialog = Dialog.alert("Disconnected", "\(gameName) ended: the connection was lost (\(Wording.shortReason(message))).")
            dialogGoesToMenu = true
        case .nameTaken? where client.endpoint != nil:
            // `snapcards join` from a shell, or a second window with the same saved name: offer
            // the next free variant rather than a dead end.
            let variant = NameRules.nextVariant(of: client.name)
            dialog = Dialog.confirm("Name taken", "Someone called \(client.name) has already joined \(client.session.welcome.map { "\($0.hostName)'s game" } ?? "this game"). Join as \(variant)?",
                                     yes: "Join as \(variant)", no: "Menu")
            retries = [(variant, client.role)]
            dialogGoesToMenu = true
        case .gameStarted? where client.endpoint != nil && client.role == .player:
            // A window opened again after a crash, perhaps under another name: this machine
            // may keep a seat in this game, away or playing in another window; the host
            // says which (`SeatLookup`). Else the game can still be watched.
            app.audio.stopDealing()
            if let endpoint = client.endpoint {
                seatLookup = SeatLookup(endpoint, name: client.name, joinCode: client.joinCode, directories: client.directories)
            }
        case let other?:
            app.audio.stopDealing()
            dialog = Dialog.alert(Self.closeTitle(other), Wording.sentence(message, after: Self.closeTitle(other)))
            dialogGoesToMenu = true
        }
        return nil
    }

    /// The question `offer` asks; its answers join again (the way out goes to the menu).
    private func offerStartedGame(_ offer: KeptSeatOffer) {
        let (question, answers) = offer.question(game: gameName, wayOut: "Menu")
        dialog = Dialog(question)
        retries = answers.map { ($0.name ?? client.name, $0.role) }
        dialogGoesToMenu = true
    }

    /// The same host, the same code, another name: a fresh table (the old link is closed).
    private func joinAgain(as name: String, role: Hello.Role, app: App) -> SceneChange? {
        guard let endpoint = client.endpoint else { return toMenu(app: app, leaving: false) }
        client.leave()
        model.stop()
        let attempt = JoinAttempt()
        let code = client.joinCode
        let join = app.games.joinAgain
        let directories = client.directories
        attempt.start { try await join(endpoint, name, code, role, directories) }
        rejoining = (attempt, role == .watcher ? "Watching…" : "Joining as \(name)…")
        app.setNeedsRedraw()
        return nil
    }

    var isRejoining: Bool { rejoining != nil }

    /// The join started by `joinAgain`, once it has an outcome.
    private func finishRejoining(app: App) -> SceneChange? {
        guard let (attempt, _) = rejoining, let result = attempt.result else { return nil }
        rejoining = nil
        switch result {
        case .success(let again):
            return .show(TableScene(app: app, client: again))
        case .failure(let error):
            let (title, message) = MenuKit.describe(error)
            return toMenu(app: app, leaving: false, notice: (title, message))
        }
    }

    static func closeTitle(_ reason: CloseReason) -> String {
        switch reason {
        case .full: "The table is full"
        case .gameStarted: "The game has started"
        case .badName, .nameTaken: "Cannot use that name"
        case .versionUnsupported: "Incompatible version"
        case .timedOut: "Disconnected"
        case .badToken: "Your seat is gone"
        case .wrongCode: "Wrong join code"
        case .protocolViolation, .hostQuit, .gameFinished: "The game closed"
        }
    }

    public func draw(_ graphics: Graphics, app: App) {
        drawTable(graphics, app: app, now: app.now)
        if let label = rejoining?.label ?? (seatLookup != nil ? "Looking for your seat…" : nil) {
            Self.roundedRect(graphics, Rect(center: Point(512, 384), size: Size(460, 110)), Color(0, 0, 0, 170), radius: 18)
            graphics.text(label, at: Point(512, 372), size: 26, bold: true, color: .gold)
        }
    }
}
#endif
