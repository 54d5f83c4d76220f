import NIOCore
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

    /// `call` (the service's store calls: sign-in, a player's matches, a turn) with its answer,
    /// or its fault, delivered on `loop`, where the service's connections live. The default
    /// awaits the calls above in a task; a store whose calls run on a thread of its own
    /// answers from that thread straight on the loop (`SQLiteStoryStore`: a turn then crosses
    /// two threads, not four).
    func perform(_ call: StoryConnection.StoreCall, answeringOn loop: any EventLoop) -> EventLoopFuture<StoryConnection.StoreAnswer>
}

extension StoryStore {
    public func perform(_ call: StoryConnection.StoreCall, answeringOn loop: any EventLoop) -> EventLoopFuture<StoryConnection.StoreAnswer> {
        loop.makeFutureWithTask { try await self.answer(call) }
    }

    /// `call`, awaited.
    public func answer(_ call: StoryConnection.StoreCall) async throws -> StoryConnection.StoreAnswer {
        switch call {
        case .registeredKey(let name): return .registeredKey(try await registeredKey(of: name))
        case .register(let key, let name):
            try await register(key, for: name)
            return .registered
        case .matches(let name): return .matches(try await matches(of: name))
        case .match(let id): return .match(try await match(id))
        case .apply(let command): return .applied(try await apply(command))
        }
    }
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

/// The rules a store applies, as a pure machine: `next(_:read:)` says, from the command
/// and what was read for it so far, what to read next or what to write. A store drives
/// it: `apply(_:in:)` awaiting each read (PostgreSQL), or a loop of synchronous reads on
/// the store's own thread (SQLite, the whole transaction in one hop). Neither carries game
/// logic of its own.
public enum StoryStoreRules {
    /// A read the rules need.
    public enum Read: Equatable, Sendable {
        /// Match `id`, held until the transaction ends (PostgreSQL: `FOR UPDATE`).
        case match(StoryMatchID)
        /// The oldest open automatch match `name` is not in, held likewise.
        case oldestOpen(excluding: String)
        /// The id the next new match takes.
        case nextID
    }

    /// What a read found.
    public enum Found: Equatable, Sendable {
        case match(StoryMatch?)
        case id(StoryMatchID)
    }

    /// A row to write.
    public enum Write: Equatable, Sendable {
        case insert(StoryMatch)
        /// A changed match (its participants, whether it is open, its deadline).
        case update(StoryMatch)
    }

    public enum Step: Equatable, Sendable {
        case read(Read)
        /// Write these, in order, then commit: the command's answer is `match`.
        case write([Write], answer: StoryMatch)
    }

    /// The next step of `command`, given what its reads found so far, in order. A refusal
    /// throws `StoryError` (the store rolls back).
    public static func next(_ command: StoryCommand, read found: [Found]) throws -> Step {
        var found = found.makeIterator()
        switch command {
        case .create:
            guard case .id(let id)? = found.next() else { return .read(.nextID) }
            let match = try StoryMatch.opened(id, by: command)
            return .write([.insert(match)], answer: match)
        case .automatch(let name, _, _):
            guard case .match(let open)? = found.next() else { return .read(.oldestOpen(excluding: name)) }
            if let open {
                let match = try open.applying(command)
                return .write([.update(match)], answer: match)
            }
            guard case .id(let id)? = found.next() else { return .read(.nextID) }
            let match = try StoryMatch.opened(id, by: command)
            return .write([.insert(match)], answer: match)
        case .rematch(let id, let name, let at):
            guard case .match(let read)? = found.next() else { return .read(.match(id)) }
            guard let old = read else { throw StoryError.unknownMatch(id) }
            if let again = old.rematch, old.includes(name) {
                guard case .match(let made)? = found.next() else { return .read(.match(again)) }
                if let made { return .write([], answer: made) }
            }
            guard case .id(let newID)? = found.next() else { return .read(.nextID) }
            let match = try old.rematched(as: newID, by: name, at: at)
            var ended = old
            ended.rematch = match.id
            return .write([.insert(match), .update(ended)], answer: match)
        case .turn(let id, _, _, _), .quit(let id, _, _), .decline(let id, _, _), .timeout(let id, _):
            guard case .match(let read)? = found.next() else { return .read(.match(id)) }
            guard let match = read else { throw StoryError.unknownMatch(id) }
            let changed = try match.applying(command)
            return .write([.update(changed)], answer: changed)
        }
    }

    /// What `command` does, read and written through `transaction`.
    public static func apply(_ command: StoryCommand, in transaction: some StoryTransaction) async throws -> StoryMatch {
        var found: [Found] = []
        while true {
            switch try next(command, read: found) {
            case .read(.match(let id)): found.append(.match(try await transaction.match(forUpdate: id)))
            case .read(.oldestOpen(let name)): found.append(.match(try await transaction.oldestOpen(excluding: name)))
            case .read(.nextID): found.append(.id(try await transaction.nextID()))
            case .write(let writes, let answer):
                for write in writes {
                    switch write {
                    case .insert(let match): try await transaction.insert(match)
                    case .update(let match): try await transaction.update(match)
                    }
                }
                return answer
            }
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
