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
}

public struct StoryMatchID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let value: UInt32
    public init(_ value: UInt32) { self.value = value }
    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
    public var description: String { String(value) }
}

public struct StoryParticipant: Hashable, Sendable {
    public var name: String
    /// Left the match; never receives the turn again.
    public var quit: Bool
    public init(name: String, quit: Bool = false) {
        self.name = name
        self.quit = quit
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

    public init(id: StoryMatchID, title: String, participants: [StoryParticipant], places: Int,
                current: Int?, text: String = "", createdAt: UInt64, lastTurnAt: UInt64? = nil, turnsTaken: Int = 0) {
        self.id = id
        self.title = title
        self.participants = participants
        self.places = places
        self.current = current
        self.text = text
        self.createdAt = createdAt
        self.lastTurnAt = lastTurnAt
        self.turnsTaken = turnsTaken
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
}

/// Everything a player can ask for; what the service journals, in order.
public enum StoryCommand: Hashable, Sendable {
    /// A match between `starter` (first turn) and the invited `others`, in that order.
    case create(starter: String, others: [String], title: String, at: UInt64)
    /// Join the oldest open match with a free place that `name` is not in, or open a new one.
    case automatch(name: String, at: UInt64)
    case turn(StoryMatchID, name: String, text: String, at: UInt64)
    case quit(StoryMatchID, name: String, at: UInt64)
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
        }
    }
}
