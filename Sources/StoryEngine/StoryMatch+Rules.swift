/// What each command does to one match: the rules in one place. `StoryBook` (the journal's
/// replay) and every store (SQLite, PostgreSQL) apply commands through these functions, each
/// inside its own transaction; a refusal changes nothing.
extension StoryMatch {
    /// The match a `.create` or `.automatch` command opens, numbered `id`.
    public static func opened(_ id: StoryMatchID, by command: StoryCommand) throws(StoryError) -> StoryMatch {
        switch command {
        case .create(let starter, let others, let title, let at, let turnSeconds):
            let names = [starter] + others
            guard StoryRules.participants.contains(names.count) else { throw .participantCount(names.count) }
            var seen: Set<String> = []
            for name in names where !seen.insert(name).inserted { throw .duplicateParticipant(name) }
            let titleScalars = title.unicodeScalars.count
            guard titleScalars <= StoryRules.maxTitleScalars else { throw .titleTooLong(scalars: titleScalars) }
            guard !title.unicodeScalars.contains(where: isControl) else { throw .controlCharacter }
            return StoryMatch(id: id, title: title, participants: names.map { StoryParticipant(name: $0) },
                              places: names.count, current: 0, createdAt: at, turnSeconds: turnSeconds,
                              dueAt: due(at, turnSeconds))
        case .automatch(let name, let at, let turnSeconds):
            // No clock while alone: the time starts when a second participant arrives.
            return StoryMatch(id: id, title: "", participants: [StoryParticipant(name: name)],
                              places: StoryRules.automatchPlaces, current: 0, createdAt: at, turnSeconds: turnSeconds)
        default:
            preconditionFailure("opened(_:by:) takes .create or .automatch")
        }
    }

    /// The rematch of this ended match, numbered `id`: its participants but those who
    /// declined, in the same order but starting one later; the same title and time a turn.
    public func rematched(as id: StoryMatchID, by name: String, at: UInt64) throws(StoryError) -> StoryMatch {
        guard includes(name) else { throw .notAParticipant(self.id, name) }
        guard ended else { throw .notEnded(self.id) }
        let names = participants.filter { !$0.declined }.map(\.name)
        guard names.count >= StoryRules.participants.lowerBound else { throw .participantCount(names.count) }
        let order = Array(names.dropFirst()) + [names[0]]
        return StoryMatch(id: id, title: title, participants: order.map { StoryParticipant(name: $0) },
                          places: order.count, current: 0, createdAt: at, turnSeconds: turnSeconds,
                          dueAt: Self.due(at, turnSeconds))
    }

    /// This match after `command`: a turn, a quit, a decline, a timeout, or an automatch
    /// newcomer taking a free place.
    public func applying(_ command: StoryCommand) throws(StoryError) -> StoryMatch {
        var match = self
        switch command {
        case .automatch(let name, let at, _):
            guard isOpen, !includes(name) else { throw .matchOver(id) }
            match.participants.append(StoryParticipant(name: name))
            if match.dueAt == nil, match.remaining >= 2 { match.dueAt = Self.due(at, turnSeconds) }

        case .turn(_, let name, let text, let at):
            let who = try playable(by: name)
            guard current == who else { throw .notYourTurn(id, current: currentName ?? "") }
            let scalars = text.unicodeScalars.count
            guard scalars > 0 else { throw .emptyTurn }
            guard scalars <= StoryRules.maxTurnScalars else { throw .tooLong(scalars: scalars) }
            guard !text.unicodeScalars.contains(where: Self.isControl) else { throw .controlCharacter }
            let old = textBytes
            let bytes = old + (old == 0 ? 0 : 1) + text.utf8.count
            guard bytes <= StoryRules.maxBytes else { throw .storyTooLong(bytes: bytes) }
            match.text += (old == 0 ? "" : " ") + text
            match.lastTurnAt = at
            match.turnsTaken += 1
            match.participants[who].wrote = true
            match.participants[who].missed = 0
            if bytes > StoryRules.finishBytes { match.end() } else { match.pass(from: who, at: at) }

        case .quit(_, let name, let at):
            let who = try playable(by: name)
            match.participants[who].quit = true
            match.leave(who, at: at)

        case .decline(_, let name, let at):
            let who = try playable(by: name)
            guard !participants[who].wrote else { throw .alreadyWrote(id, name) }
            match.participants[who].quit = true
            match.participants[who].declined = true
            match.leave(who, at: at)

        case .timeout(_, let at):
            guard let who = current, let dueAt, at >= dueAt else { throw ended ? .matchOver(id) : .notDue(id) }
            match.participants[who].missed += 1
            if match.participants[who].missed >= StoryRules.missedTurnsToQuit {
                match.participants[who].quit = true
                match.leave(who, at: at)
            } else {
                match.pass(from: who, at: at)
            }

        case .create, .rematch:
            preconditionFailure("applying(_:) takes commands on an existing match")
        }
        return match
    }

    /// The index of `name` if they may still act in this match.
    func playable(by name: String) throws(StoryError) -> Int {
        guard let who = index(of: name) else { throw .notAParticipant(id, name) }
        guard !ended else { throw .matchOver(id) }
        guard !participants[who].quit else { throw .quitParticipant(id, name) }
        return who
    }

    /// After participant `who` left: the match ends with fewer than two left, else the
    /// turn moves on if it was theirs.
    private mutating func leave(_ who: Int, at: UInt64) {
        if remaining < 2 {
            end()
        } else if current == who {
            pass(from: who, at: at)
        }
    }

    /// The turn goes to the next participant who has not quit, with a full turn's time
    /// (none for someone alone in an open match, waiting for others).
    private mutating func pass(from who: Int, at: UInt64) {
        current = next(after: who)
        dueAt = current == nil || remaining < 2 ? nil : Self.due(at, turnSeconds)
    }

    private mutating func end() {
        current = nil
        dueAt = nil
    }

    /// When a turn started `at` runs out; a deadline past the end of time (only a damaged or
    /// hostile record could ask for one) is the end of time, never a trap.
    static func due(_ at: UInt64, _ turnSeconds: UInt64) -> UInt64? {
        guard turnSeconds > 0 else { return nil }
        let (sum, overflow) = at.addingReportingOverflow(turnSeconds)
        return overflow ? .max : sum
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
