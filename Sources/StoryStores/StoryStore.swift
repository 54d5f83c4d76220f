import StoryEngine
import StoryProtocol

/// Where the story service keeps its matches and its players' keys: a database, so that
/// memory follows connections rather than matches, and several service processes can share
/// one (PostgreSQL). Every change goes through `apply(_:)`, one transaction each, committed
/// before it returns: a turn is answered only once it is on disk.
///
/// Implementations: `SQLiteStoryStore` (the default, one file) and `PostgresStoryStore`.
/// The rules they apply are StoryEngine's (`StoryMatch+Rules`), dispatched by
/// `StoryStoreRules.apply(_:in:)` so that no store carries game logic of its own.
public protocol StoryStore: AnyObject, Sendable {
    /// What `snapcards story serve` prints after "store: ": "sqlite PATH" or "postgres HOST/DB".
    var description: String { get }

    /// What the store knows of a name's key (never a secret).
    func registeredKey(of name: String) async throws -> StoryRegisteredKey?
    /// Registers a name's key, replacing any before it; committed when this returns.
    func register(_ key: StoryRegisteredKey, for name: String) async throws

    func match(_ id: StoryMatchID) async throws -> StoryMatch?
    /// `name`'s matches, oldest first.
    func matches(of name: String) async throws -> [StoryMatch]
    /// Applies `command` in one transaction (`StoryStoreRules.apply`); the match it changed
    /// (or made). A refusal throws `StoryError` and changes nothing; a database fault
    /// throws `StoryStoreError`.
    func apply(_ command: StoryCommand) async throws -> StoryMatch
    /// Matches whose current participant is out of time at `now`, earliest first.
    func due(at now: UInt64, limit: Int) async throws -> [StoryMatchID]
    func matchCount() async throws -> Int

    /// Matches that other processes sharing this database changed, as their transactions
    /// commit (PostgreSQL's NOTIFY); a store only one process uses never yields.
    func changes() -> AsyncStream<StoryMatchID>

    /// Adds the matches and keys an old story journal held (`snapcards story import`), in one
    /// transaction, keeping their ids, and records `source` as imported (`imported()`).
    /// Matches made later are numbered after the imported ones. Returns how many matches
    /// came across.
    func importBook(_ matches: [StoryMatch], keys: [String: StoryRegisteredKey], source: String) async throws -> Int
    /// Where the matches of the last `importBook` came from; nil if none was ever imported
    /// (a journal is never imported twice).
    func imported() async throws -> String?

    func close() async
}

/// One transaction of a store, as the rules need it.
public protocol StoryTransaction {
    /// Match `id`, held until the transaction ends (PostgreSQL: `FOR UPDATE`).
    func match(forUpdate id: StoryMatchID) async throws -> StoryMatch?
    /// The oldest open automatch match `name` is not in, held likewise.
    func oldestOpen(excluding name: String) async throws -> StoryMatch?
    /// The id the next new match takes.
    func nextID() async throws -> StoryMatchID
    func insert(_ match: StoryMatch) async throws
    /// Writes a changed match (its participants, whether it is open, its deadline).
    func update(_ match: StoryMatch) async throws
}

public enum StoryStoreRules {
    /// What `command` does, read and written through `transaction`.
    public static func apply(_ command: StoryCommand, in transaction: some StoryTransaction) async throws -> StoryMatch {
        switch command {
        case .create:
            let match = try StoryMatch.opened(try await transaction.nextID(), by: command)
            try await transaction.insert(match)
            return match
        case .automatch(let name, _, _):
            if let open = try await transaction.oldestOpen(excluding: name) {
                let match = try open.applying(command)
                try await transaction.update(match)
                return match
            }
            let match = try StoryMatch.opened(try await transaction.nextID(), by: command)
            try await transaction.insert(match)
            return match
        case .rematch(let id, let name, let at):
            guard let old = try await transaction.match(forUpdate: id) else { throw StoryError.unknownMatch(id) }
            if let again = old.rematch, old.includes(name), let match = try await transaction.match(forUpdate: again) {
                return match
            }
            let match = try old.rematched(as: try await transaction.nextID(), by: name, at: at)
            try await transaction.insert(match)
            var ended = old
            ended.rematch = match.id
            try await transaction.update(ended)
            return match
        case .turn(let id, _, _, _), .quit(let id, _, _), .decline(let id, _, _), .timeout(let id, _):
            guard let match = try await transaction.match(forUpdate: id) else { throw StoryError.unknownMatch(id) }
            let changed = try match.applying(command)
            try await transaction.update(changed)
            return changed
        }
    }
}

/// A store's fault, in words a player or an operator can act on.
public enum StoryStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database cannot be reached (at start: exit 3; later: requests are refused).
    case unreachable(String)
    /// The database's schema is from a newer snap.
    case newerSchema(found: Int, supported: Int, where: String)
    /// A stored row that does not read back.
    case damaged(String)
    /// The disk is full or read-only, or another fault of the database.
    case failed(String)

    public var description: String {
        switch self {
        case .unreachable(let why): "the story service cannot reach its database (\(why)); try again"
        case .newerSchema(let found, let supported, let place):
            "\(place) holds story schema version \(found), newer than this snap's \(supported): upgrade snap to use it"
        case .damaged(let what): "the story database is damaged: \(what)"
        case .failed(let why): "the story database failed: \(why)"
        }
    }
}
