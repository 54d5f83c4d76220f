import StoryEngine

/// One thing worth a desktop notification: a summary line and a body, about one match.
public struct StoryNotice: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The turn has come to the player.
        case yourTurn
        /// The player's time for this turn runs out within `StoryNotices.deadlineWarning`.
        case deadlineNear
        /// The match ended (finished, or too few left), or the player was passed for good
        /// (three missed turns) while the others go on.
        case ended
    }

    public let match: StoryMatchID
    public let kind: Kind
    /// "Your turn in 'The dragon'".
    public let summary: String
    /// "Ann wrote: …".
    public let body: String

    public init(match: StoryMatchID, kind: Kind, summary: String, body: String) {
        self.match = match
        self.kind = kind
        self.summary = summary
        self.body = body
    }

    /// The notice on one line: "Your turn in 'The dragon' — Ann wrote: …".
    public var description: String { body.isEmpty ? summary : "\(summary) — \(body)" }
}

/// Decides a player's notices from the views of their matches as the service sends them:
/// pure (time comes in as `now`, seconds since 1970), so `snapcards story notify` and its tests
/// drive the same decisions.
///
/// **Baseline and reconnections.** The views seen last are kept for the life of the value,
/// across reconnections: after a reconnection, `listed` compares each match with the view
/// before the connection dropped, so what changed meanwhile is told once and what did not
/// is not told again. The very first list (the notifier just started: the player has just
/// logged in) tells only what waits for the player now: a "your turn" for each match that
/// is their turn (with the story's last words), with the time left if under the hour. Old
/// endings are not told. A notifier started again tells the pending turns again: it keeps
/// nothing on disk.
public struct StoryNotices: Sendable {
    /// The player whose notices these are.
    public let player: String
    /// A turn whose time runs out within this many seconds is worth a notice (once a turn).
    public static let deadlineWarning: UInt64 = 3600
    /// The most characters of new text a notice quotes (its end: that is where the player
    /// goes on).
    public static let excerptCharacters = 120
    /// Seconds a watcher waits on a quiet connection before it looks at the deadlines again
    /// (and pings the service): `snapcards story notify`'s tick.
    public static let checkSeconds = 15
    /// The last view of each match.
    public private(set) var views: [StoryMatchID: StoryMatch] = [:]
    /// Whether the first list has been taken.
    public private(set) var hasBaseline = false
    /// The turns (match and deadline) already warned of.
    private var warned: Set<Deadline> = []

    private struct Deadline: Hashable {
        let match: StoryMatchID
        let dueAt: UInt64
    }

    public init(player: String) { self.player = player }

    /// The player's matches as listed after each (re)connection.
    public mutating func listed(_ matches: [StoryMatch], at now: UInt64) -> [StoryNotice] {
        guard hasBaseline else {
            hasBaseline = true
            var notices: [StoryNotice] = []
            for match in matches where match.includes(player) {
                views[match.id] = match
                if match.currentName == player { notices.append(yourTurn(nil, match, at: now, baseline: true)) }
            }
            return notices
        }
        return matches.flatMap { updated($0, at: now) }
    }

    /// A match as pushed by the service (or listed again): the notices its change brings.
    public mutating func updated(_ match: StoryMatch, at now: UInt64) -> [StoryNotice] {
        guard let me = match.index(of: player) else { return [] }
        let old = views[match.id]
        // An older view than the one kept (the list and a push crossing): nothing new.
        if let old, old == match || old.turnsTaken > match.turnsTaken || (old.ended && !match.ended) { return [] }
        views[match.id] = match
        warned = warned.filter { $0.match != match.id || $0.dueAt == match.dueAt }
        if let ending = ended(old, match, me: me) { return [ending] }
        // A new turn of the player's: it came to them, or came round again (turns taken, or
        // passed by time, while they were not looking).
        if match.current == me, old.map({ $0.current != me || $0.turnsTaken != match.turnsTaken || $0.dueAt != match.dueAt }) ?? true {
            return [yourTurn(old, match, at: now, baseline: false)]
        }
        return deadline(match, at: now).map { [$0] } ?? []
    }

    /// The "deadline within the hour" notices due at `now`, each once a turn: call it on a timer.
    public mutating func deadlines(at now: UInt64) -> [StoryNotice] {
        views.values.sorted { $0.id < $1.id }.compactMap { deadline($0, at: now) }
    }

    private mutating func deadline(_ match: StoryMatch, at now: UInt64) -> StoryNotice? {
        guard match.currentName == player, let dueAt = match.dueAt, dueAt > now, dueAt - now <= Self.deadlineWarning,
              warned.insert(Deadline(match: match.id, dueAt: dueAt)).inserted
        else { return nil }
        var body = nextWriter(match).map { "Write your turn, or it passes to \($0)." } ?? "Write your turn."
        if let me = match.index(of: player), match.participants[me].missed == StoryRules.missedTurnsToQuit - 1 {
            body += " You have missed \(StoryRules.missedTurnsToQuit - 1) turns in a row: miss this one and you leave the story."
        }
        let left = StoryDuration.describe(dueAt - now)
        return StoryNotice(match: match.id, kind: .deadlineNear, summary: "\(left) left in \(quoted(match))", body: body)
    }

    /// When `deadlines(at:)` next has something to say (nil: no deadline ahead), so a
    /// timer can wait exactly that long.
    public func nextDeadlineCheck(after now: UInt64) -> UInt64? {
        views.values.compactMap { match -> UInt64? in
            guard match.currentName == player, let dueAt = match.dueAt, dueAt > now,
                  !warned.contains(Deadline(match: match.id, dueAt: dueAt)) else { return nil }
            return max(now, dueAt - min(dueAt, Self.deadlineWarning))
        }.min()
    }

    // MARK: - Wording

    private func quoted(_ match: StoryMatch) -> String { "'\(match.heading())'" }

    private mutating func yourTurn(_ old: StoryMatch?, _ match: StoryMatch, at now: UInt64, baseline: Bool) -> StoryNotice {
        var body: String
        if match.text.isEmpty {
            let others = match.participants.filter { $0.name != player && !$0.quit }.map(\.name)
            body = "A new story with \(Self.list(others)): you write the first lines."
        } else if let old, match.text.utf8.starts(with: old.text.utf8), match.turnsTaken > old.turnsTaken {
            // Bytes, not characters: a turn opening with a combining mark joins the last character.
            let added = Self.excerpt(String(decoding: match.text.utf8.dropFirst(old.text.utf8.count), as: UTF8.self))
            let turns = match.turnsTaken - old.turnsTaken
            if turns == 1, let writer = lastWriter(old, match) {
                body = "\(writer) wrote: \(added)"
            } else {
                body = "\(turns) turns since you last looked, ending: \(added)"
            }
        } else if let old, match.turnsTaken == old.turnsTaken, let who = old.current {
            // Nobody wrote: the one before ran out of time, or left.
            let before = old.participants[who], after = match.participants[who]
            let why = after.declined ? "declined" : after.missed > before.missed ? "ran out of time" : after.quit ? "left" : "passed"
            let subject = before.name == player ? "The turn came round to you again: everyone" : before.name
            body = "\(subject) \(why). The story so far ends: \(Self.excerpt(match.text))"
        } else {
            body = (baseline ? "The story so far ends: " : "The story so far: ") + Self.excerpt(match.text)
        }
        if let dueAt = match.dueAt, dueAt > now, dueAt - now <= Self.deadlineWarning {
            // Said here, not in a second notice a moment later.
            warned.insert(Deadline(match: match.id, dueAt: dueAt))
            body += " (\(StoryDuration.describe(dueAt - now)) left)"
        }
        return StoryNotice(match: match.id, kind: .yourTurn, summary: "Your turn in \(quoted(match))", body: body)
    }

    /// Who took the one turn between `old` and `match`: whoever's turn it was, if their
    /// turn did not pass by time (a turn taken leaves `missed` at 0).
    private func lastWriter(_ old: StoryMatch, _ match: StoryMatch) -> String? {
        guard let who = old.current, who < match.participants.count else { return nil }
        let after = match.participants[who]
        return after.wrote && after.missed == 0 ? after.name : nil
    }

    /// The participant after the current one who has not quit (who gets the turn if time runs out).
    private func nextWriter(_ match: StoryMatch) -> String? {
        guard let current = match.current else { return nil }
        for step in 1..<max(1, match.participants.count) {
            let candidate = match.participants[(current + step) % match.participants.count]
            if !candidate.quit { return candidate.name }
        }
        return nil
    }

    /// The match ended for the player between `old` and `match` (nil: it did not, or the
    /// player left it themselves).
    private func ended(_ old: StoryMatch?, _ match: StoryMatch, me: Int) -> StoryNotice? {
        let mine = match.participants[me]
        let wasOut = old.map { $0.participants.indices.contains(me) && $0.participants[me].quit } ?? false
        let missedOut = mine.quit && !wasOut && mine.missed >= StoryRules.missedTurnsToQuit
        if mine.quit && !missedOut { return nil }  // they quit or declined: they know
        let missedWords = "You missed \(StoryRules.missedTurnsToQuit) turns in a row"
        if match.ended, !(old?.ended ?? false) {
            let summary = "\(quoted(match)) has ended"
            if match.textBytes > StoryRules.finishBytes {
                let writers = match.participants.filter(\.wrote).map(\.name)
                return StoryNotice(match: match.id, kind: .ended, summary: "\(quoted(match)) is finished",
                                   body: "\(match.turnsTaken) turns by \(Self.list(writers)). It ends: \(Self.excerpt(match.text))")
            }
            if missedOut {
                return StoryNotice(match: match.id, kind: .ended, summary: summary,
                                   body: "\(missedWords), and too few were left to go on.")
            }
            let leavers = match.participants.indices.filter { index in
                index != me && match.participants[index].quit
                    && !(old.map { $0.participants.indices.contains(index) && $0.participants[index].quit } ?? false)
            }.map { match.participants[$0] }
            let reasons = leavers.map { leaver in
                leaver.declined ? "\(leaver.name) declined"
                    : leaver.missed >= StoryRules.missedTurnsToQuit ? "\(leaver.name) missed \(leaver.missed) turns" : "\(leaver.name) quit"
            }
            let body = reasons.isEmpty ? "Everyone else left." : "Everyone else left: \(reasons.joined(separator: ", "))."
            return StoryNotice(match: match.id, kind: .ended, summary: summary, body: body)
        }
        if missedOut {
            return StoryNotice(match: match.id, kind: .ended, summary: "You are out of \(quoted(match))",
                               body: "\(missedWords); the story goes on without you.")
        }
        return nil
    }

    /// "Ann", "Ann and Bob", "Ann, Bob and Cy".
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "nobody" }
        return names.dropLast().joined(separator: ", ") + " and " + names.last!
    }

    /// At most `excerptCharacters` of `text`'s end: whole if it fits, else "…" and its last
    /// words (cut at a space when one is near, so no word is broken).
    public static func excerpt(_ text: String, characters: Int = excerptCharacters) -> String {
        let text = text.trimmingSpaces
        guard text.count > characters else { return text }
        var tail = Substring(text.suffix(characters - 1))
        if let space = tail.firstIndex(of: " "), tail.distance(from: tail.startIndex, to: space) < characters / 4 {
            tail = tail[tail.index(after: space)...]
        }
        return "…" + tail
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
