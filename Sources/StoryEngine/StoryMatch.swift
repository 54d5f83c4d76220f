/// "Story": several people write a story together, one turn at a time, over hours or
/// days. The rules are here and nowhere else; the service, the command line and the
/// window all drive `StoryBook.apply(_:)`. Time arrives as a value (seconds since 1970)
/// in each command, so replaying the journal gives back exactly the same matches.
public enum StoryRules {
    /// Participants a match may have.
    public static let participants = 2...16
    /// Places an automatch offers before it stops taking newcomers.
    public static let automatchPlaces = 4
    /// A turn's text, in Unicode scalars.
    public static let maxTurnScalars = 250
    /// From this many bytes of story, everyone sees "about N letters left".
    public static let warningBytes = 3000
    /// A turn that takes the story past this many bytes finishes the match.
    public static let finishBytes = 3800
    /// No turn may make the story longer than this (bytes of UTF-8).
    public static let maxBytes = 4096
    /// A title, in Unicode scalars.
    public static let maxTitleScalars = 60
    /// Turns missed in a row (their time ran out) after which a participant counts as quit.
    public static let missedTurnsToQuit = 3
}

public struct StoryMatchID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let value: UInt32
    public init(_ value: UInt32) { self.value = value }
    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
    public var description: String { String(value) }
}

public struct StoryParticipant: Hashable, Sendable {
    public var name: String
    /// Left the match (quit, declined, or missed too many turns); never receives the turn again.
    public var quit: Bool
    /// Declined the invitation before writing anything (then `quit` too).
    public var declined: Bool
    /// Has taken at least one turn: from then on leaving is quitting, not declining.
    public var wrote: Bool
    /// Turns missed in a row (the deadline passed); a turn taken sets it back to 0.
    public var missed: Int

    public init(name: String, quit: Bool = false, declined: Bool = false, wrote: Bool = false, missed: Int = 0) {
        self.name = name
        self.quit = quit
        self.declined = declined
        self.wrote = wrote
        self.missed = missed
    }
}

/// One match: the story so far, who writes it, and whose turn it is.
public struct StoryMatch: Hashable, Sendable {
    public let id: StoryMatchID
    /// Given at creation, or empty (the list then shows the opening of the story).
    public var title: String
    public var participants: [StoryParticipant]
    /// How many may take part: the invited count, or `StoryRules.automatchPlaces`.
    public var places: Int
    /// Index into `participants` of whoever writes next; nil once the match has ended.
    public var current: Int?
    public var text: String
    public var createdAt: UInt64
    /// When the last turn was taken (nil before the first).
    public var lastTurnAt: UInt64?
    public var turnsTaken: Int
    /// Seconds each participant has for a turn; 0: no deadline.
    public var turnSeconds: UInt64
    /// When the current participant's time runs out (nil: ended, or no deadline).
    public var dueAt: UInt64?
    /// The match a rematch of this one started, once one has.
    public var rematch: StoryMatchID?

    public init(id: StoryMatchID, title: String, participants: [StoryParticipant], places: Int,
                current: Int?, text: String = "", createdAt: UInt64, lastTurnAt: UInt64? = nil, turnsTaken: Int = 0,
                turnSeconds: UInt64 = 0, dueAt: UInt64? = nil, rematch: StoryMatchID? = nil) {
        self.id = id
        self.title = title
        self.participants = participants
        self.places = places
        self.current = current
        self.text = text
        self.createdAt = createdAt
        self.lastTurnAt = lastTurnAt
        self.turnsTaken = turnsTaken
        self.turnSeconds = turnSeconds
        self.dueAt = dueAt
        self.rematch = rematch
    }

    public var ended: Bool { current == nil }
    /// Still taking newcomers by automatch.
    public var isOpen: Bool { !ended && participants.count < places }
    public var currentName: String? { current.map { participants[$0].name } }
    public var textBytes: Int { text.utf8.count }
    /// Bytes left before the story finishes, once it is long enough to say so.
    public var lettersLeft: Int? {
        ended || textBytes < StoryRules.warningBytes ? nil : max(0, StoryRules.finishBytes - textBytes)
    }

    public func index(of name: String) -> Int? { participants.firstIndex { $0.name == name } }
    public func includes(_ name: String) -> Bool { index(of: name) != nil }

    /// The title, else the story's opening (at most `length` characters, "…" if cut), else "Match N".
    public func heading(length: Int = 24) -> String {
        let source = title.isEmpty ? text : title
        guard !source.isEmpty else { return "Match \(id)" }
        return source.count <= length ? source : String(source.prefix(length - 1)) + "…"
    }

    /// The next participant after `index` in order who has not quit, possibly `index` itself.
    func next(after index: Int) -> Int? {
        for step in 1...participants.count {
            let candidate = (index + step) % participants.count
            if !participants[candidate].quit { return candidate }
        }
        return nil
    }

    var remaining: Int { participants.count { !$0.quit } }

    /// Seconds the current participant has left at `now` (nil: ended, or no deadline).
    public func secondsLeft(at now: UInt64) -> UInt64? {
        guard !ended, let dueAt else { return nil }
        return dueAt > now ? dueAt - now : 0
    }
}

/// Everything that changes a match: what players ask for, and the clock.
public enum StoryCommand: Hashable, Sendable {
    /// A match between `starter` (first turn) and the invited `others`, in that order;
    /// each turn may take `turnSeconds` (0: no deadline).
    case create(starter: String, others: [String], title: String, at: UInt64, turnSeconds: UInt64 = 0)
    /// Join the oldest open match with a free place that `name` is not in, or open a new
    /// one with `turnSeconds` a turn.
    case automatch(name: String, at: UInt64, turnSeconds: UInt64 = 0)
    case turn(StoryMatchID, name: String, text: String, at: UInt64)
    case quit(StoryMatchID, name: String, at: UInt64)
    /// An invited participant says no before writing anything.
    case decline(StoryMatchID, name: String, at: UInt64)
    /// The current participant's time ran out at `at` (the service's clock): the turn
    /// passes as if they had passed. Refused (`notDue`) if the time has not run out.
    case timeout(StoryMatchID, at: UInt64)
    /// A new match with an ended match's participants (those who had not declined), the
    /// next one after its starter writing first. Asked again, it is the same new match.
    case rematch(StoryMatchID, name: String, at: UInt64)
}

public enum StoryError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownMatch(StoryMatchID)
    case notAParticipant(StoryMatchID, String)
    case quitParticipant(StoryMatchID, String)
    case notYourTurn(StoryMatchID, current: String)
    case matchOver(StoryMatchID)
    case emptyTurn
    case tooLong(scalars: Int)
    case controlCharacter
    case storyTooLong(bytes: Int)
    case participantCount(Int)
    case duplicateParticipant(String)
    case titleTooLong(scalars: Int)
    /// Declining is for before one's first turn; after it, quit.
    case alreadyWrote(StoryMatchID, String)
    /// A rematch is of an ended match.
    case notEnded(StoryMatchID)
    /// A timeout before the deadline (the service's clocks disagree, or another process
    /// passed the turn first): nothing changes.
    case notDue(StoryMatchID)

    public var description: String {
        switch self {
        case .unknownMatch(let id): "there is no match \(id)"
        case .notAParticipant(let id, let name): "\(name) does not take part in match \(id)"
        case .quitParticipant(let id, let name): "\(name) has quit match \(id)"
        case .notYourTurn(let id, let current): "it is not your turn in match \(id): it is \(current)'s"
        case .matchOver(let id): "match \(id) is over"
        case .emptyTurn: "a turn needs some text"
        case .tooLong(let scalars):
            "the text is too long: \(scalars) characters, at most \(StoryRules.maxTurnScalars) a turn"
        case .controlCharacter: "the text may not hold control characters (line breaks, tabs)"
        case .storyTooLong(let bytes):
            "the story would be \(bytes) bytes, over the limit of \(StoryRules.maxBytes); write less"
        case .participantCount(let count):
            "a match has \(StoryRules.participants.lowerBound) to \(StoryRules.participants.upperBound) participants, not \(count)"
        case .duplicateParticipant(let name): "\(name) is named twice"
        case .titleTooLong(let scalars): "the title is \(scalars) characters, at most \(StoryRules.maxTitleScalars)"
        case .alreadyWrote(let id, let name):
            "\(name) has already written in match \(id): declining is for before your first turn; quit instead"
        case .notEnded(let id): "match \(id) has not ended: a rematch is of an ended match"
        case .notDue(let id): "the turn in match \(id) is not yet out of time"
        }
    }
}
