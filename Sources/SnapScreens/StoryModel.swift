import StoryEngine
import StoryProtocol

/// Story's window as a value: the list of the player's matches (Your turn / Their turn /
/// Ended) with Automatch and New Match (its invite field), and a match view with the story,
/// the turn field with the characters left, the status line with the time left, End Turn,
/// Quit (Decline before one's first turn) and, once ended, Rematch. What the story service
/// says and how the connection stands come in as intents; what goes to the service leaves
/// as `Effect.send`. The wall clock (seconds since 1970, the service's) is passed in to
/// `update(now:wallClock:)`: the time left and "2 h ago" are read from it, never from a clock here.
public struct StoryModel: Equatable, Sendable {
    /// A button, or a row of the list.
    public enum Action: Hashable, Sendable {
        case back, automatch, invite, endTurn, quit, decline, rematch, listMatch(StoryMatchID)

        /// The button's words (Rematch's change once there is one: `rematchTitle`).
        public var title: String {
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

    /// How the connection to the story service stands.
    public enum Connection: Equatable, Sendable {
        /// Signed in (`again`: after a connection was lost).
        case connected(again: Bool)
        /// Away: the words, with when the next try comes.
        case retrying(String)
        /// Over: a refusal another try would meet again.
        case ended(String)
    }

    public enum Intent: Equatable, Sendable {
        /// A button released, or a row of the list pressed.
        case choose(Action)
        /// A press: whether inside the turn field's frame, and the invite field's.
        case press(inTurnField: Bool, inInviteField: Bool)
        /// A key or a paste for the field that takes them (the turn's in a match view on
        /// one's turn, the invite field on the list).
        case edit(TextFieldModel.Edit)
        /// Enter: End Turn on one's turn, New Match from the invite field.
        case enter
        /// Esc: back to the list, or from the list to the menu.
        case escape
        /// The alert's OK.
        case dismissAlert
        /// What the story service said.
        case reply(StoryReply)
        /// The connection changed.
        case connection(Connection)
    }

    /// What the window does for the model.
    public enum Effect: Equatable, Sendable {
        /// What any screen asks (open the menu, copy to the clipboard).
        case screen(ScreenEffect)
        /// Queue this request for the story service (sent in order, once connected).
        case send(StoryRequest)
        /// A new status line: the view's ("match 1, 3 turns: Waiting for Bob"), a notice, a
        /// refusal or the connection's (`snapcards story window --print-status` prints them).
        case status(String)
        /// Catch the player's eye (flash the window when it is not in front): a match became theirs.
        case attention
    }

    /// What the window shows.
    public enum Page: Equatable, Sendable {
        /// Why there is nothing to show (no service), with Back.
        case problem(String)
        case match(StoryMatch)
        case list
    }

    /// A line over the footer for a while: another match became the player's.
    public struct Notice: Equatable, Sendable {
        public var text: String
        /// The window's clock when it goes.
        public var until: Double
    }

    /// How long a notice stays, in seconds.
    public static let noticeSeconds = 6.0

    public let name: String
    public private(set) var matches: [StoryMatchID: StoryMatch] = [:]
    /// The service's list has come (until then an empty group says "…", not "none").
    public private(set) var loaded = false
    /// The match shown, nil for the list.
    public private(set) var viewing: StoryMatchID?
    /// The turn being written.
    public private(set) var turn: TextFieldModel
    /// The names to invite (New Match).
    public private(set) var invite: TextFieldModel
    /// The text of a turn sent and not yet answered (put back if refused).
    public private(set) var sentText: String?
    /// A rematch asked for from this match: its answer (the new match) is opened.
    public private(set) var rematchFrom: StoryMatchID?
    /// "Your turn in '…'", shown until `until` (the window's clock).
    public private(set) var notice: Notice?
    /// Why the service is not there (cannot be reached, away, refused), nil while connected.
    public private(set) var problem: String?
    /// False once the connection is over for good (or there was none to make): nothing is sent.
    public private(set) var hasService: Bool
    /// A message over the view (a refusal, a New Match without names).
    public private(set) var alert: Alert?
    /// The window's clock, as last passed in.
    public private(set) var now: Double
    /// Seconds since 1970, as last passed in: what the time left is counted from.
    public private(set) var wallClock: UInt64
    private var lastStatus: String?

    /// `open`: a match to show at once instead of the list. `problem`: why there is no
    /// connection to the service at all (no socket path); nil when one is being made.
    public init(name: String, open: StoryMatchID? = nil, problem: String? = nil, now: Double, wallClock: UInt64) {
        self.name = name
        turn = TextFieldModel(maxLength: StoryRules.maxTurnScalars, characters: .printable)
        invite = TextFieldModel(maxLength: 120)
        viewing = open
        turn.isFocused = open != nil
        self.problem = problem
        hasService = problem == nil
        self.now = now
        self.wallClock = wallClock
    }

    // MARK: - What the view shows

    /// The match shown, once the service has sent it.
    public var viewed: StoryMatch? { viewing.flatMap { matches[$0] } }
    /// The match shown is the player's to write (and the service is there to take it).
    public var isMyTurn: Bool { viewed?.currentName == name && hasService }
    /// The player's matches, the latest turn first.
    public var mine: [StoryMatch] {
        matches.values.sorted { ($0.lastTurnAt ?? $0.createdAt, $0.id) > ($1.lastTurnAt ?? $1.createdAt, $1.id) }
    }

    public var page: Page {
        if let problem, !hasService || matches.isEmpty { return .problem(problem) }
        if let viewed { return .match(viewed) }
        return .list
    }

    /// Away from the service with matches on screen: they stay, and a band says so.
    public var showsAwayBand: Bool { problem != nil && hasService && !matches.isEmpty && notice == nil }
    public static let awayBand = "The story service is away: signing in again…"

    public var isAnimating: Bool { turn.isFocused || invite.isFocused || notice != nil }
    public var title: String { viewed.map { "Story — \($0.heading())" } ?? "Story" }

    /// End Turn can be pressed: one's turn, something written, no turn waiting for its answer.
    public var canEndTurn: Bool { isMyTurn && !turn.text.isEmpty && sentText == nil }
    /// The match view's way out of a match still running: Quit, or Decline before one's first
    /// turn (the others see it); nil once ended or left.
    public var leaveAction: Action? {
        guard let viewed, !viewed.ended, let me = viewed.participants.first(where: { $0.name == name }), !me.quit else { return nil }
        return me.wrote ? .quit : .decline
    }
    /// An ended match of the player's offers Rematch (or Open Rematch).
    public var offersRematch: Bool { viewed.map { $0.ended && $0.includes(name) } ?? false }
    /// Rematch waits for the answer to the one asked for.
    public var isRematchEnabled: Bool { rematchFrom == nil }

    /// The turn field's "N left".
    public var charactersLeft: Int { StoryRules.maxTurnScalars - turn.count }
    public static let turnPlaceholder = "Click here and write your part (up to \(StoryRules.maxTurnScalars) characters)."

    /// The line at the foot of the window.
    public var footer: String {
        guard viewed != nil else { return "Click a match to read it     Esc  back" }
        return isMyTurn ? "Enter  end turn     Esc  back to the list" : "Esc  back to the list"
    }

    /// The current writer's seconds left at the wall clock; nil without a deadline.
    public func secondsLeft(_ match: StoryMatch) -> UInt64? { match.secondsLeft(at: wallClock) }
    /// What the view says under `match`'s story.
    public func status(of match: StoryMatch) -> String { Self.status(of: match, for: name, secondsLeft: secondsLeft(match)) }
    /// A list row's whose-turn line.
    public func rowStatus(of match: StoryMatch) -> String { Self.rowStatus(of: match, for: name, secondsLeft: secondsLeft(match)) }
    /// When `match`'s last turn was taken, in words.
    public func ago(_ match: StoryMatch) -> String { Self.ago(match.lastTurnAt, at: wallClock) }

    /// The view's state in one line: the match shown, its turns and status; or the list's counts.
    public var statusLine: String? {
        if let viewed { return "match \(viewed.id), \(viewed.turnsTaken) turns: \(status(of: viewed))" }
        guard loaded else { return nil }
        let all = Array(matches.values)
        return "list: \(all.count { $0.currentName == name }) your turn, "
            + "\(all.count { !$0.ended && $0.currentName != name }) their turn, \(all.count(where: \.ended)) ended"
    }

    // MARK: - The door

    public mutating func handle(_ intent: Intent, now: Double) -> [Effect] {
        self.now = now
        switch intent {
        case .reply(let reply):
            return receive(reply)
        case .connection(let connection):
            return connect(connection)
        case .dismissAlert:
            alert = nil
        case _ where alert != nil:
            break  // the alert takes input first
        case .choose(let action):
            return perform(action)
        case .press(let inTurnField, let inInviteField):
            // A click in a field takes the focus; anywhere else drops it.
            if viewing != nil, isMyTurn {
                if inTurnField { turn.focus() } else { turn.isFocused = false }
            }
            if viewing == nil {
                if inInviteField { invite.focus() } else { invite.isFocused = false }
            }
        case .edit(let edit):
            var effects: [ScreenEffect] = []
            if viewing != nil, isMyTurn { effects += turn.handle(edit) }
            if viewing == nil { effects += invite.handle(edit) }
            return effects.map(Effect.screen)
        case .enter:
            if viewing != nil, isMyTurn { return perform(.endTurn) }
            if viewing == nil, invite.isFocused { return perform(.invite) }
        case .escape:
            return perform(.back)
        }
        return []
    }

    /// The window's clocks move on: a notice's time runs out, and a changed status line (the
    /// time left ticks without any reply) is said.
    public mutating func update(now: Double, wallClock: UInt64) -> [Effect] {
        self.now = now
        self.wallClock = wallClock
        if let until = notice?.until, now > until { notice = nil }
        return hasService ? sayStatusLine() : []
    }

    private mutating func sayStatusLine() -> [Effect] {
        guard let status = statusLine, status != lastStatus else { return [] }
        lastStatus = status
        return [.status(status)]
    }

    private func send(_ request: StoryRequest) -> [Effect] { hasService ? [.send(request)] : [] }

    private mutating func perform(_ action: Action) -> [Effect] {
        switch action {
        case .back:
            guard viewing != nil else { return [.screen(.show(.menu))] }
            viewing = nil
            turn.set("")
        case .automatch:
            return send(.automatch)
        case .invite:
            let names = invite.text.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
            guard !names.isEmpty else {
                alert = Alert("Whom to invite?", "Type the other players' names, separated by commas.")
                return []
            }
            invite.set("")
            return send(.create(others: names, title: ""))
        case .endTurn:
            // One turn at a time: a second sent before the first's answer would overwrite
            // the text kept for a refusal (and be refused itself).
            guard let viewed, canEndTurn else { return [] }
            sentText = turn.text
            turn.set("")
            return send(.turn(viewed.id, text: sentText!))
        case .quit:
            guard let viewed else { return [] }
            return send(.quit(viewed.id))
        case .decline:
            guard let viewed else { return [] }
            return send(.decline(viewed.id))
        case .rematch:
            guard let viewed else { return [] }
            rematchFrom = viewed.id
            return send(.rematch(viewed.id))
        case .listMatch(let id):
            viewing = id
            turn.set("")
            turn.isFocused = true
            if let match = matches[id], match.currentName == name, notice?.text == Self.notice(match) { notice = nil }
        }
        return []
    }

    private mutating func receive(_ reply: StoryReply) -> [Effect] {
        switch reply {
        case .match(let match):
            if sentText != nil, match.id == viewing { sentText = nil }
            matches[match.id] = match
            if let from = rematchFrom, from == viewing, match.id != from {
                rematchFrom = nil
                matches[from]?.rematch = match.id
                viewing = match.id
                turn.set("")
                turn.isFocused = true
            }
        case .update(let match):
            let before = matches[match.id]
            matches[match.id] = match
            // Another match became yours: say so without leaving what you are doing.
            if match.currentName == name, before?.currentName != name, match.id != viewing {
                let text = Self.notice(match)
                notice = Notice(text: text, until: now + Self.noticeSeconds)
                return [.status("notice: \(text)"), .attention]
            }
        case .listed:
            loaded = true
        case .refused(_, let message):
            rematchFrom = nil
            if let sentText {
                turn.set(sentText)
                self.sentText = nil
            }
            alert = Alert("Not taken", message)
            return [.status("refused: \(message)")]
        case .challenge, .welcome, .pong:
            break  // sign-in is over before the reader starts; pongs answer nothing here
        }
        return []
    }

    private mutating func connect(_ connection: Connection) -> [Effect] {
        switch connection {
        case .connected(let again):
            problem = nil
            if again, let sentText {
                // Sent as the connection went: whether it was taken, the match's state (listed
                // again) says; the text is back in the field either way.
                turn.set(sentText)
                self.sentText = nil
            }
            return [.status(again ? "connection: signed in again" : "connection: signed in")]
        case .retrying(let words):
            problem = words
            return [.status("connection: \(words)")]
        case .ended(let words):
            // Refused for good: the reason alone, no match to act on. The view's line as it
            // stands is said once more (it is said no more after this).
            problem = words
            let effects = [Effect.status("connection: \(words)")] + sayStatusLine()
            hasService = false
            return effects
        }
    }

    // MARK: - Words (pure: docs/STORY.md quotes them, and a test checks the quotes against these)

    /// The list's groups, in order, with `name`'s matches in each.
    public static func groups(_ matches: [StoryMatch], for name: String) -> [(label: String, matches: [StoryMatch])] {
        [("Your turn", matches.filter { $0.currentName == name }),
         ("Their turn", matches.filter { !$0.ended && $0.currentName != name }),
         ("Ended", matches.filter(\.ended))]
    }

    /// What the match view says under the story to `name`: whose turn and the time left
    /// (`secondsLeft`, nil without a deadline), the letters left, who missed turns.
    public static func status(of match: StoryMatch, for name: String, secondsLeft: UInt64?) -> String {
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
    public static func rowStatus(of match: StoryMatch, for name: String, secondsLeft: UInt64?) -> String {
        var whose = match.ended ? "ended" : match.currentName == name ? "your turn" : "\(match.currentName!)'s turn"
        if let left = secondsLeft.map(StoryDuration.describe) { whose += " · \(left) left" }
        return whose
    }

    /// How long ago `seconds` (since 1970) was at `now`: "just now", "5 min ago", "2 h ago", "3 d ago".
    public static func ago(_ seconds: UInt64?, at now: UInt64) -> String {
        guard let seconds else { return "no turn yet" }
        let elapsed = max(0, Int(now) - Int(seconds))
        if elapsed < 60 { return "just now" }
        if elapsed < 3600 { return "\(elapsed / 60) min ago" }
        if elapsed < 86_400 { return "\(elapsed / 3600) h ago" }
        return "\(elapsed / 86_400) d ago"
    }

    /// The most characters of a title (or opening) a notice shows; a longer one is cut with "…".
    public static let noticeHeadingLength = 16

    /// The notice that another match became yours: "Your turn in 'The dragon'".
    public static func notice(_ match: StoryMatch) -> String { "Your turn in '\(match.heading(length: noticeHeadingLength))'" }

    /// The ended match's button: Rematch, or Open Rematch once there is one.
    public static func rematchTitle(_ match: StoryMatch) -> String { match.rematch == nil ? Action.rematch.title : "Open Rematch" }

    /// A participant's name as the view shows it, with why they no longer write.
    public static func label(_ participant: StoryParticipant) -> String {
        if participant.declined { return "\(participant.name) (declined)" }
        if participant.quit { return participant.missed >= StoryRules.missedTurnsToQuit ? "\(participant.name) (out of time)" : "\(participant.name) (quit)" }
        return participant.name
    }
}

extension Substring {
    /// Without the spaces and tabs at either end (Unicode's Zs and U+0009, scalar by scalar),
    /// as the window trimmed invited names before.
    fileprivate func trimmingSpaces() -> String {
        func drop(_ scalar: Unicode.Scalar) -> Bool { scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }) else { return "" }
        let last = scalars.lastIndex { !drop($0) }!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
