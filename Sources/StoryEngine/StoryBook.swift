/// Matches held in memory, changed only through the rules (`StoryMatch+Rules`): how an
/// old story journal is replayed (`snapcards story import`), and what the rules' tests drive.
/// The service keeps its matches in a store (StoryService's `StoryStore`) instead, which
/// applies the same functions in a transaction.
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
        case .create:
            return add(try StoryMatch.opened(nextID, by: command))
        case .automatch(let name, _, _):
            if let id = open.first(where: { !self[$0]!.includes(name) }) {
                let match = try self[id]!.applying(command)
                byName[name, default: []].append(id)
                store(match)
                return match
            }
            let match = add(try StoryMatch.opened(nextID, by: command))
            open.append(match.id)
            return match
        case .rematch(let id, let name, let at):
            guard let old = self[id] else { throw .unknownMatch(id) }
            if let again = old.rematch, old.includes(name) { return self[again]! }
            let match = add(try old.rematched(as: nextID, by: name, at: at))
            var ended = old
            ended.rematch = match.id
            store(ended)
            return match
        case .turn(let id, _, _, _), .quit(let id, _, _), .decline(let id, _, _), .timeout(let id, _):
            guard let match = self[id] else { throw .unknownMatch(id) }
            let changed = try match.applying(command)
            store(changed)
            return changed
        }
    }

    private var nextID: StoryMatchID { StoryMatchID(UInt32(matches.count + 1)) }

    private mutating func add(_ match: StoryMatch) -> StoryMatch {
        matches.append(match)
        for participant in match.participants { byName[participant.name, default: []].append(match.id) }
        return match
    }

    /// Keeps a changed match; one no longer open takes no newcomers.
    private mutating func store(_ match: StoryMatch) {
        matches[Int(match.id.value) - 1] = match
        if !match.isOpen, let position = open.firstIndex(of: match.id) { open.remove(at: position) }
    }
}
