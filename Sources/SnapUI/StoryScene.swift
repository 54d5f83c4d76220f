#if GUI
import SnapScreens
import NIOConcurrencyHelpers
import Glibc
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapTable
import StoryEngine
import StoryLink
import StoryProtocol

/// The story service as the window sees it: one signed-in, watching connection, signed in
/// to and read by a task; what it brings waits in an inbox that the scene drains every
/// frame (woken by `WindowWake`), so a turn taken elsewhere shows at once. Nothing here
/// waits on the window's thread: requests are queued for the task to send, in order. When
/// the service goes away the task signs in again as `StoryReconnect` says (as `story
/// notify` does), and watches and lists again once back.
public final class StoryServiceConnection: Sendable {
    /// How the connection stands, as the window shows it.
    enum State: Equatable {
        /// Signed in (`again`: after a connection was lost).
        case connected(again: Bool)
        /// Away: the words, with when the next try comes.
        case retrying(String)
        /// Over: a refusal another try would meet again.
        case ended(String)
    }

    /// What the window queues, and a connection's end (which wakes the sending loop).
    private enum Outgoing: Sendable {
        case request(StoryRequest)
        case ended(connection: Int, reason: String)
    }

    /// What the link's task hands the window: replies, and how the connection stands.
    private enum Arrival: Sendable {
        case reply(StoryReply)
        case state(State)
    }

    private let inbox = WindowInbox<Arrival>()
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let task: Task<Void, Never>

    public init(endpoint: StoryEndpoint, name: String, joinCode: String = "", trust: ServerTrust? = nil) {
        let (stream, outgoing) = AsyncStream.makeStream(of: Outgoing.self)
        self.outgoing = outgoing
        let inbox = self.inbox
        task = Task.detached {
            let origin = ContinuousClock.now
            func now() -> Duration { ContinuousClock.now - origin }
            var link = StoryReconnect()
            var actions = link.handle(.start, now: now())
            var queued = stream.makeAsyncIterator()
            var client: StoryClient?
            var connection = 0
            while !Task.isCancelled {
                guard !actions.isEmpty else {
                    guard let due = link.nextDeadline else { return }
                    do { try await Task.sleep(until: origin + due, clock: .continuous) } catch { return }
                    actions = link.handle(.timerFired, now: now())
                    continue
                }
                switch actions.removeFirst() {
                case .signIn:
                    do {
                        client = try await StoryKeyStore.default().signIn(endpoint: endpoint, name: name, joinCode: joinCode,
                                                                          timeoutSeconds: 0, trust: trust)
                        actions += link.handle(.signedIn, now: now())
                    } catch {
                        actions += link.handle(.signInFailed("\(error)", retry: error.storySignInIsWorthRetrying), now: now())
                    }
                case .signedIn(let again):
                    guard let signedIn = client else { return }
                    connection += 1
                    inbox.post(.state(.connected(again: again)))
                    let reason = await Self.serve(signedIn, connection: connection, queued: &queued, outgoing: outgoing, inbox: inbox)
                    signedIn.hangUp()
                    client = nil
                    guard let reason else { return }  // the window went
                    actions += link.handle(.lost(reason), now: now())
                case .retrying(let after, let reason, let wasSignedIn):
                    let seconds = after.components.seconds
                    inbox.post(.state(.retrying(wasSignedIn ? "The story service went away (\(reason)); signing in again in \(seconds) s."
                                                    : "\(reason). Trying again in \(seconds) s."))))
                case .finished(let reason):
                    inbox.post(.state(.ended(reason)))
                    return
                }
            }
        }
    }

    /// One signed-in connection: watch and list, then what the window queues goes out in
    /// order while a reader hands in what comes; returns why it ended (nil: the window went).
    private static func serve(_ client: StoryClient, connection: Int, queued: inout AsyncStream<Outgoing>.Iterator,
                              outgoing: AsyncStream<Outgoing>.Continuation, inbox: WindowInbox<Arrival>) async -> String? {
        let reader = Task {
            while true {
                do { inbox.post(.reply(try await client.next())) } catch {
                    outgoing.yield(.ended(connection: connection, reason: "\(error)"))
                    return
                }
            }
        }
        defer { reader.cancel() }
        do {
            try await client.send(.watch)
            try await client.send(.list)
        } catch {
            return "\(error)"
        }
        while let item = await queued.next() {
            switch item {
            case .request(let request):
                do { try await client.send(request) } catch { return "\(error)" }
            case .ended(let ended, let reason):
                if ended == connection { return reason }  // an older connection's end is old news
            }
        }
        return nil
    }

    /// What arrived since the last call, and how the connection stands if that changed.
    func drain() -> (replies: [StoryReply], state: State?) {
        var drained: (replies: [StoryReply], state: State?) = ([], nil)
        for arrival in inbox.takeAll() {
            switch arrival {
            case .reply(let reply): drained.replies.append(reply)
            case .state(let state): drained.state = state
            }
        }
        return drained
    }

    /// Queues `request` for the connection's task (which sends it after those before it;
    /// while the service is away, once it is back).
    func send(_ request: StoryRequest) {
        outgoing.yield(.request(request))
    }

    deinit {
        outgoing.finish()
        task.cancel()
    }
}

/// Story's window: the list of your matches (Your turn / Their turn / Ended), and a match
/// view with the story, a text field with how many characters are left, the time left for
/// the turn, End Turn, Quit (Decline before one's first turn) and, once ended, Rematch.
public final class StoryScene: Scene {
    enum Action: Hashable {
        case back, automatch, invite, endTurn, quit, decline, rematch, listMatch(StoryMatchID)

        /// The button's words (Rematch's change once there is one: `rematchTitle`).
        var title: String {
            switch self {
            case .back: "Back"
            case .automatch: "Automatch"
            case .invite: "New Match"
            case .endTurn: "End Turn"
            case .quit: "Quit"
            case .decline: "Decline"
            case .rematch: "Rematch"
            case .listMatch: ""
            }
        }
    }

    /// nil once signing in failed (or when there is no socket path to try).
    private var link: StoryServiceConnection?
    private let name: String
    private var matches: [StoryMatchID: StoryMatch] = [:]
    private var loaded = false
    /// The match shown, nil for the list.
    private(set) var viewing: StoryMatchID?
    private var field: TextField
    private var invite: TextField
    /// The text of a turn sent and not yet answered (put back if refused).
    private var sentText: String?
    /// A rematch asked for from this match: its answer (the new match) is opened.
    private var rematchFrom: StoryMatchID?
    private var notice: (text: String, until: Double)?
    private var problem: String?
    private var buttons = ButtonSet<Action>()
    private var rows: [(Rect, StoryMatchID)] = []
    var dialog: Dialog?
    private var now = 0.0
    /// Told each new status line of the view ("Waiting for Bob", "Your turn", "ended"), each
    /// notice and each refusal: `snapcards story window --print-status` prints them for tests.
    public var onStatus: ((String) -> Void)?
    private var lastStatus: String?

    /// Connects as `name`; a service that cannot be reached is said in the window.
    /// `trust`: how a TCP service's certificate is checked (nil: the player's known hosts).
    public init(app: App, endpoint: StoryEndpoint? = nil, name: String, open: StoryMatchID? = nil, joinCode: String = "",
                trust: ServerTrust? = nil) {
        self.name = name
        field = TextField(text: "", frame: Rect(x: 72, y: 560, width: 880, height: 96), maxLength: StoryRules.maxTurnScalars,
                          characters: .printable)
        invite = TextField(text: "", frame: Rect(x: 356, y: 668, width: 336, height: 40), maxLength: 120)
        do {
            let target = try endpoint ?? .unix(defaultStorySocketPath(create: false))
            link = StoryServiceConnection(endpoint: target, name: name, joinCode: joinCode, trust: trust)
        } catch {
            link = nil
            problem = "\(error)"
        }
        viewing = open
        field.isFocused = open != nil
        now = app.now
    }

    public var isAnimating: Bool { field.isFocused || invite.isFocused || notice != nil }
    public var title: String { viewing.flatMap { matches[$0] }.map { "Story — \($0.heading())" } ?? "Story" }

    // MARK: - Model

    public func update(now: Double, app: App) -> SceneChange? {
        self.now = now
        if let until = notice?.until, now > until { notice = nil; app.setNeedsRedraw() }
        guard let link else { return nil }
        let (replies, state) = link.drain()
        for reply in replies { receive(reply, app: app) }
        switch state {
        case .connected(let again)?:
            problem = nil
            if again, let sentText {
                // Sent as the connection went: whether it was taken, the match's state (listed
                // again) says; the text is back in the field either way.
                field.set(sentText)
                self.sentText = nil
            }
            onStatus?(again ? "connection: signed in again" : "connection: signed in")
            app.setNeedsRedraw()
        case .retrying(let words)?:
            problem = words
            onStatus?("connection: \(words)")
            app.setNeedsRedraw()
        case .ended(let words)?:
            // Refused for good: the reason alone, no match to act on.
            self.link = nil
            problem = words
            onStatus?("connection: \(words)")
            app.setNeedsRedraw()
        case nil:
            break
        }
        if !replies.isEmpty { app.setNeedsRedraw() }
        // The time left ticks without any event: a changed status line is a redraw.
        if let status = statusLine, status != lastStatus {
            lastStatus = status
            onStatus?(status)
            app.setNeedsRedraw()
        }
        return nil
    }

    private func receive(_ reply: StoryReply, app: App) {
        switch reply {
        case .match(let match):
            if sentText != nil, match.id == viewing { sentText = nil }
            matches[match.id] = match
            if let from = rematchFrom, from == viewing, match.id != from {
                rematchFrom = nil
                matches[from]?.rematch = match.id
                viewing = match.id
                field.set("")
                field.isFocused = true
            }
        case .update(let match):
            let before = matches[match.id]
            matches[match.id] = match
            // Another match became yours: say so without leaving what you are doing.
            if match.currentName == name, before?.currentName != name, match.id != viewing {
                notice = (Self.notice(match), now + 6)
                onStatus?("notice: \(notice!.text)")
                if !app.graphics.hasFocus { app.graphics.flash() }
            }
        case .listed:
            loaded = true
        case .refused(_, let message):
            rematchFrom = nil
            if let sentText {
                field.set(sentText)
                self.sentText = nil
            }
            dialog = Dialog.alert("Not taken", message)
            onStatus?("refused: \(message)")
        case .challenge, .welcome, .pong:
            break  // sign-in is over before the reader starts; pongs answer nothing here
        }
    }

    private var mine: [StoryMatch] { matches.values.sorted { ($0.lastTurnAt ?? $0.createdAt, $0.id) > ($1.lastTurnAt ?? $1.createdAt, $1.id) } }

    // MARK: - Input

    public func handle(_ input: Input, app: App) -> SceneChange? {
        if var shown = dialog {
            dialog = shown.handle(input) == nil ? shown : nil
            return nil
        }
        if viewing != nil, isMyTurn {
            if input == .key(.enter) { return perform(.endTurn, app: app) }
            if field.handle(input, app: app) { app.setNeedsRedraw() }
        }
        if viewing == nil, invite.handle(input, app: app) { app.setNeedsRedraw() }
        switch input {
        case .press(let point):
            if !buttons.press(point), viewing == nil, let row = rows.first(where: { $0.0.contains(point) }) {
                return perform(.listMatch(row.1), app: app)
            }
        case .release(let point):
            if let action = buttons.release(point) { return perform(action, app: app) }
        case .key(.escape):
            return perform(.back, app: app)
        case .key(.enter) where viewing == nil && invite.isFocused:
            return perform(.invite, app: app)
        default:
            break
        }
        return nil
    }

    private var viewed: StoryMatch? { viewing.flatMap { matches[$0] } }
    private var isMyTurn: Bool { viewed?.currentName == name && link != nil }

    private func perform(_ action: Action, app: App) -> SceneChange? {
        app.setNeedsRedraw()
        switch action {
        case .back:
            guard viewing != nil else { return .show(app.menu()) }
            viewing = nil
            field.set("")
        case .automatch:
            link?.send(.automatch)
        case .invite:
            let names = invite.text.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
            guard !names.isEmpty else {
                dialog = Dialog.alert("Whom to invite?", "Type the other players' names, separated by commas.")
                return nil
            }
            link?.send(.create(others: names, title: ""))
            invite.set("")
        case .endTurn:
            guard let viewed, isMyTurn, !field.text.isEmpty else { return nil }
            sentText = field.text
            link?.send(.turn(viewed.id, text: field.text))
            field.set("")
        case .quit:
            guard let viewed else { return nil }
            link?.send(.quit(viewed.id))
        case .decline:
            guard let viewed else { return nil }
            link?.send(.decline(viewed.id))
        case .rematch:
            guard let viewed else { return nil }
            rematchFrom = viewed.id
            link?.send(.rematch(viewed.id))
        case .listMatch(let id):
            viewing = id
            field.set("")
            field.isFocused = true
            if let match = matches[id], match.currentName == name, notice?.text == Self.notice(match) { notice = nil }
        }
        return nil
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
        if let problem, link == nil || matches.isEmpty {
            MenuKit.heading(graphics, "Story")
            MenuKit.paragraph(graphics, problem, at: Point(512, 260), width: 760, size: 18, color: MenuKit.errorColor, maxLines: 5)
            graphics.text("Start the service with:  snapcards story serve", at: Point(512, 400), size: 18, color: MenuKit.hintColor)
            buttons.add(.back, Button(Action.back.title, center: Point(512, 680), width: 150))
        } else if let viewed {
            drawMatch(viewed, graphics, app: app)
        } else {
            drawList(graphics, app: app)
        }
        buttons.draw(graphics, app.assets)
        if let notice {
            // Over the footer: seen, without covering the story or the buttons.
            let box = Rect(x: 262, y: 726, width: 500, height: 36)
            MenuKit.panel(graphics, box, Color(255, 214, 90, 245), radius: 10)
            graphics.text(notice.text, at: Point(512, 733), size: 17, bold: true, color: .ink, shadow: false)
        }
        if problem != nil, link != nil, !matches.isEmpty, notice == nil {
            // Away from the service with matches on screen: they stay, and a band over the
            // footer says so (the reason is in the status line, and on the list once empty).
            let band = Rect(x: 262, y: 726, width: 500, height: 36)
            MenuKit.panel(graphics, band, Color(196, 64, 52, 240), radius: 10)
            graphics.text("The story service is away: signing in again…", at: Point(512, 733), size: 17, bold: true,
                          color: .white, shadow: false)
        }
        if let dialog { dialog.draw(graphics, assets: app.assets) }
    }

    private func ago(_ seconds: UInt64?) -> String {
        guard let seconds else { return "no turn yet" }
        let elapsed = max(0, Int(time(nil)) - Int(seconds))
        if elapsed < 60 { return "just now" }
        if elapsed < 3600 { return "\(elapsed / 60) min ago" }
        if elapsed < 86_400 { return "\(elapsed / 3600) h ago" }
        return "\(elapsed / 86_400) d ago"
    }

    private func drawList(_ graphics: Graphics, app: App) {
        MenuKit.heading(graphics, "Story")
        graphics.text("Writing as \(name)", at: Point(512, 84), size: 15, color: MenuKit.hintColor)
        var y = 116.0
        for (label, group) in Self.groups(mine, for: name) {
            MenuKit.label(graphics, "\(label)  (\(group.count))", at: Point(72, y))
            y += 28
            if group.isEmpty {
                graphics.text(loaded ? "none" : "…", at: Point(92, y), size: 15, color: MenuKit.hintColor, align: .left)
                y += 30
            }
            for match in group.prefix(label == "Ended" ? 3 : 4) {
                let row = Rect(x: 72, y: y, width: 880, height: 50)
                MenuKit.panel(graphics, row, MenuKit.rowColor, radius: 8)
                graphics.text(match.heading(length: 40), at: Point(86, y + 5), size: 17, bold: true, color: .white, align: .left)
                let names = match.participants.map(Self.label).joined(separator: ", ")
                graphics.text(names, at: Point(86, y + 28), size: 13, color: MenuKit.hintColor, align: .left)
                let whose = Self.rowStatus(of: match, for: name, secondsLeft: secondsLeft(match))
                graphics.text(whose, at: Point(936, y + 5), size: 15, bold: true, color: match.currentName == name ? .gold : .white, align: .right)
                graphics.text(ago(match.lastTurnAt), at: Point(936, y + 28), size: 13, color: MenuKit.hintColor, align: .right)
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
        invite.draw(graphics, now: now)
        buttons.add(.invite, Button(Action.invite.title, center: Point(788, 688), width: 170))
        buttons.add(.back, Button(Action.back.title, center: Point(940, 688), width: 110))
        MenuKit.footer(graphics, "Click a match to read it     Esc  back")
    }

    private func drawMatch(_ match: StoryMatch, _ graphics: Graphics, app: App) {
        MenuKit.heading(graphics, match.heading(length: 36), y: 22)
        // The participants in order, whoever writes now in gold.
        var x = 72.0
        for (index, participant) in match.participants.enumerated() {
            let current = index == match.current
            let label = Self.label(participant)
            let size = graphics.text(label, at: Point(x, 78), size: 16, bold: current,
                                     color: current ? .gold : participant.quit ? Color(170, 170, 170) : .white, align: .left)
            x += size.width + 22
        }
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
        let status = status(of: match)
        graphics.text(status, at: Point(72, box.y + box.height + 8), size: 17, bold: true,
                      color: isMyTurn ? .gold : .white, align: .left)
        if isMyTurn {
            drawTurnField(graphics)
            buttons.add(.endTurn, Button(Action.endTurn.title, center: Point(620, 700), width: 180))
        }
        if !match.ended, let me = match.participants.first(where: { $0.name == name }), !me.quit {
            // Before one's first turn, leaving is declining the invitation: the others see it.
            if me.wrote {
                buttons.add(.quit, Button(Action.quit.title, center: Point(800, 700), width: 130))
            } else {
                buttons.add(.decline, Button(Action.decline.title, center: Point(800, 700), width: 150))
            }
        }
        if match.ended, match.includes(name) {
            buttons.add(.rematch, Button(Self.rematchTitle(match), center: Point(760, 700), width: 210))
            buttons[.rematch].isEnabled = rematchFrom == nil
        }
        buttons.add(.back, Button(Action.back.title, center: Point(940, 700), width: 110))
        if isMyTurn { buttons[.endTurn].isEnabled = !field.text.isEmpty && sentText == nil }
        MenuKit.footer(graphics, isMyTurn ? "Enter  end turn     Esc  back to the list" : "Esc  back to the list")
    }

    /// What the view says under the story.
    private func status(of match: StoryMatch) -> String { Self.status(of: match, for: name, secondsLeft: secondsLeft(match)) }

    /// The current writer's seconds left now; nil without a deadline.
    private func secondsLeft(_ match: StoryMatch) -> UInt64? { match.secondsLeft(at: UInt64(max(0, time(nil)))) }

    // MARK: - Words (pure: docs/STORY.md quotes them, and a test checks the quotes against these)

    /// The list's groups, in order, with `name`'s matches in each.
    static func groups(_ matches: [StoryMatch], for name: String) -> [(label: String, matches: [StoryMatch])] {
        [("Your turn", matches.filter { $0.currentName == name }),
         ("Their turn", matches.filter { !$0.ended && $0.currentName != name }),
         ("Ended", matches.filter(\.ended))]
    }

    /// What the match view says under the story to `name`: whose turn and the time left
    /// (`secondsLeft`, nil without a deadline), the letters left, who missed turns.
    static func status(of match: StoryMatch, for name: String, secondsLeft: UInt64?) -> String {
        let left = secondsLeft.map(StoryDuration.describe)
        var status: String
        if match.ended {
            status = match.textBytes > StoryRules.finishBytes ? "The story is finished" : "This match has ended"
        } else if match.currentName == name {
            status = "Your turn" + (left.map { ": \($0) left" } ?? "")
        } else {
            status = "Waiting for \(match.currentName!)" + (left.map { ": \(match.currentName!) has \($0) left" } ?? "")
        }
        if let left = match.lettersLeft { status += "  —  about \(left) letters left" }
        // Someone missing turns is news to everyone: the first of them in turn order is said.
        if let missed = match.participants.first(where: { $0.missed > 0 }) {
            status += "  —  \(missed.name) missed " + (missed.missed == 1 ? "a turn" : "\(missed.missed) turns")
        }
        return status
    }

    /// A list row's whose-turn line: "your turn · 4 h 59 min left", "Bob's turn", "ended".
    static func rowStatus(of match: StoryMatch, for name: String, secondsLeft: UInt64?) -> String {
        var whose = match.ended ? "ended" : match.currentName == name ? "your turn" : "\(match.currentName!)'s turn"
        if let left = secondsLeft.map(StoryDuration.describe) { whose += " · \(left) left" }
        return whose
    }

    /// The most characters of a title (or opening) a notice shows; a longer one is cut with "…".
    static let noticeHeadingLength = 16

    /// The notice that another match became yours: "Your turn in 'The dragon'".
    static func notice(_ match: StoryMatch) -> String { "Your turn in '\(match.heading(length: noticeHeadingLength))'" }

    /// The ended match's button: Rematch, or Open Rematch once there is one.
    static func rematchTitle(_ match: StoryMatch) -> String { match.rematch == nil ? Action.rematch.title : "Open Rematch" }

    /// A participant's name as the view shows it, with why they no longer write.
    static func label(_ participant: StoryParticipant) -> String {
        if participant.declined { return "\(participant.name) (declined)" }
        if participant.quit { return participant.missed >= StoryRules.missedTurnsToQuit ? "\(participant.name) (out of time)" : "\(participant.name) (quit)" }
        return participant.name
    }

    /// The view's state in one line: the match shown, its turns and status; or the list's counts.
    private var statusLine: String? {
        if let viewed { return "match \(viewed.id), \(viewed.turnsTaken) turns: \(status(of: viewed))" }
        guard loaded else { return nil }
        let all = Array(matches.values)
        return "list: \(all.count { $0.currentName == name }) your turn, "
            + "\(all.count { !$0.ended && $0.currentName != name }) their turn, \(all.count(where: \.ended)) ended"
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
        if field.isFocused, MenuKit.caretPhase(now) == 0 {
            // The caret after the text before it (the wrap of the prefix ends where the caret is).
            let before = MenuKit.wrap(graphics, String(field.text.prefix(field.caret)), width: width, size: 16)
            let row = min(2, max(0, before.count - 1) - max(0, lines.count - 3))
            let x = MenuKit.width(graphics, before.last ?? "", size: 16)
            graphics.fill(Rect(x: frame.x + 10 + x, y: frame.y + 8 + Double(max(0, row)) * 21, width: 2, height: 20), .ink)
        }
        let left = StoryRules.maxTurnScalars - field.count
        graphics.text("\(left) left", at: Point(frame.x + frame.width - 10, frame.y + frame.height - 22), size: 14, bold: left == 0,
                      color: left == 0 ? Color(200, 60, 40) : Color(110, 110, 110), align: .right, shadow: false)
        if field.text.isEmpty, !field.isFocused {
            graphics.text("Click here and write your part (up to \(StoryRules.maxTurnScalars) characters).",
                          at: Point(frame.x + 10, frame.y + 8), size: 16, color: Color(140, 140, 140), align: .left, shadow: false)
        }
    }
}
#endif
