/// Every match the service holds, and the one function that changes them. A refused
/// command changes nothing.
public struct StoryBook: Sendable {
    /// Match N is `matches[N - 1]`: ids are handed out in order and never reused.
    public private(set) var matches: [StoryMatch] = []
    /// Open automatch matches, oldest first.
    private var open: [StoryMatchID] = []
    /// Each name's matches, in order of joining.
    private var byName: [String: [StoryMatchID]] = [:]

    public init() {}

    public subscript(id: StoryMatchID) -> StoryMatch? {
        let index = Int(id.value) - 1
        return matches.indices.contains(index) ? matches[index] : nil
    }

    public func matches(of name: String) -> [StoryMatch] {
        (byName[name] ?? []).map { matches[Int($0.value) - 1] }
    }

    /// Applies `command`; returns the match it changed (or made).
    @discardableResult
    public mutating func apply(_ command: StoryCommand) throws(StoryError) -> StoryMatch {
        switch command {
        case .create(let starter, let others, let title, let at):
            let names = [starter] + others
            guard StoryRules.participants.contains(names.count) else { throw .participantCount(names.count) }
            var seen: Set<String> = []
            for name in names where !seen.insert(name).inserted { throw .duplicateParticipant(name) }
            let titleScalars = title.unicodeScalars.count
            guard titleScalars <= StoryRules.maxTitleScalars else { throw .titleTooLong(scalars: titleScalars) }
            guard !title.unicodeScalars.contains(where: Self.isControl) else { throw .controlCharacter }
            return add(StoryMatch(id: nextID, title: title, participants: names.map { StoryParticipant(name: $0) },
                                  places: names.count, current: 0, createdAt: at))

        case .automatch(let name, let at):
            if let position = open.firstIndex(where: { !self[$0]!.includes(name) }) {
                let id = open[position]
                let index = Int(id.value) - 1
                matches[index].participants.append(StoryParticipant(name: name))
                byName[name, default: []].append(id)
                if !matches[index].isOpen { open.remove(at: position) }
                return matches[index]
            }
            let match = add(StoryMatch(id: nextID, title: "", participants: [StoryParticipant(name: name)],
                                       places: StoryRules.automatchPlaces, current: 0, createdAt: at))
            open.append(match.id)
            return match

        case .turn(let id, let name, let text, let at):
            let index = try playable(id, by: name)
            guard matches[index].current == matches[index].index(of: name) else {
                throw .notYourTurn(id, current: matches[index].currentName ?? "")
            }
            let scalars = text.unicodeScalars.count
            guard scalars > 0 else { throw .emptyTurn }
            guard scalars <= StoryRules.maxTurnScalars else { throw .tooLong(scalars: scalars) }
            guard !text.unicodeScalars.contains(where: Self.isControl) else { throw .controlCharacter }
            let old = matches[index].textBytes
            let bytes = old + (old == 0 ? 0 : 1) + text.utf8.count
            guard bytes <= StoryRules.maxBytes else { throw .storyTooLong(bytes: bytes) }
            var match = matches[index]
            match.text += (old == 0 ? "" : " ") + text
            match.lastTurnAt = at
            match.turnsTaken += 1
            match.current = bytes > StoryRules.finishBytes ? nil : match.next(after: match.current!)
            store(match)
            return match

        case .quit(let id, let name, _):
            let index = try playable(id, by: name)
            var match = matches[index]
            let who = match.index(of: name)!
            match.participants[who].quit = true
            if match.remaining < 2 {
                match.current = nil
            } else if match.current == who {
                match.current = match.next(after: who)
            }
            store(match)
            return match
        }
    }

    private var nextID: StoryMatchID { StoryMatchID(UInt32(matches.count + 1)) }

    private mutating func add(_ match: StoryMatch) -> StoryMatch {
        matches.append(match)
        for participant in match.participants { byName[participant.name, default: []].append(match.id) }
        return match
    }

    /// Keeps a changed match; an ended one no longer takes newcomers.
    private mutating func store(_ match: StoryMatch) {
        matches[Int(match.id.value) - 1] = match
        if match.ended, let position = open.firstIndex(of: match.id) { open.remove(at: position) }
    }

    /// The index of match `id` if `name` may still act in it.
    private func playable(_ id: StoryMatchID, by name: String) throws(StoryError) -> Int {
        guard let match = self[id] else { throw .unknownMatch(id) }
        guard let who = match.index(of: name) else { throw .notAParticipant(id, name) }
        guard !match.ended else { throw .matchOver(id) }
        guard !match.participants[who].quit else { throw .quitParticipant(id, name) }
        return Int(id.value) - 1
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
