#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapPlatform
import SQLiteNIO
import StoryLink
import StoryEngine
import StoryProtocol

/// The story service's default store: one SQLite file (sqlite-nio, which bundles SQLite's
/// amalgamation), in WAL mode with `synchronous=FULL`, so a transaction that returned is on
/// disk. One connection; transactions are serialised (`BEGIN IMMEDIATE`, one at a time
/// through `gate`), and every statement runs on sqlite-nio's thread pool, never on an
/// event loop. Rows hold a match as `StoryWire.bytes(of:)`; nothing is kept in memory
/// but SQLite's own page cache, so memory does not grow with the matches stored.
///
/// The write-ahead log is checkpointed off the commit path: SQLite's automatic checkpoint
/// (which runs inside the commit that crosses 1000 pages, and makes that turn wait for the
/// database file's writes and `fsync`) is off, and a `WALCheckpointer` on a connection and
/// a thread of its own runs a PASSIVE checkpoint every `checkpointEvery` commits. PASSIVE
/// never waits for nor blocks a writer; once a checkpoint has copied the whole log, the next
/// commit starts the log again from its beginning, so it stays a few hundred pages long.
///
/// Schema (`StorySchema`'s steps; at version 1):
/// - `meta(key PRIMARY KEY, value)`: `schema_version`, and `imported` once a journal was.
/// - `matches(id INTEGER PRIMARY KEY, open INTEGER, due_at INTEGER NULL, body BLOB)`,
///   indexed on `(open, id)` (automatch: the oldest open match) and on `due_at` (deadlines).
/// - `members(name, match_id)`: who takes part in what (`matches(of:)`).
/// - `keys(name PRIMARY KEY, kind, bytes)`: 0 an old key's digest, 1 a public key.
public final class SQLiteStoryStore: StoryStore, @unchecked Sendable {  // `connection` is Sendable; `gate` is an actor
    public let path: String
    let connection: SQLiteConnection
    private let gate = StoreGate()
    let checkpointer: WALCheckpointer
    /// Commits since the checkpointer was last asked; touched inside `gate` only.
    private var commitsSinceCheckpoint = 0
    /// A checkpoint every this many commits: with a turn's 3 or 4 pages, the log stays near
    /// 400 pages (SQLite's own default is 1000 pages).
    static let checkpointEvery = 100

    public var description: String { "sqlite \(path)" }

    /// `$XDG_STATE_HOME/snap/story/story.sqlite`.
    public static func defaultPath(environment: [String: String] = currentEnvironment()) -> String {
        storyStateDirectory(environment: environment) + "/story.sqlite"
    }

    /// Opens (or creates) the database at `path`, creating or checking its schema. A
    /// schema from a newer snap is refused (`.newerSchema`); a file that cannot be opened
    /// or written is `.unreachable` or `.failed`, in plain words.
    public static func open(path: String, threadPool: NIOThreadPool = .singleton,
                            eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()) async throws -> SQLiteStoryStore {
        try await open(path: path, migrations: StorySchema.migrations, threadPool: threadPool, eventLoop: eventLoop)
    }

    /// `open`, with the schema's steps given (a test's list, to try the mechanism).
    static func open(path: String, migrations: [StoryMigration], threadPool: NIOThreadPool = .singleton,
                     eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()) async throws -> SQLiteStoryStore {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        // A `file:` URI (SQLite's own options, as tests use) is left to SQLite to check.
        let uri = path.hasPrefix("file:")
        if !uri, access(path, F_OK) == 0 {
            guard access(path, R_OK | W_OK) == 0 else {
                throw StoryStoreError.failed("\(path) is read-only (\(String(cString: strerror(errno)))): the service must write its turns; "
                                             + "make it writable or choose another --database")
            }
        }
        let dir = directory.isEmpty ? "." : directory
        guard uri || access(dir, W_OK | X_OK) == 0 else {
            throw StoryStoreError.failed("the directory \(dir) of \(path) is not writable (\(String(cString: strerror(errno)))): "
                                         + "SQLite keeps its write-ahead log beside the file")
        }
        var logger = Logger(label: "snap.story.sqlite")
        logger.logLevel = .warning
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: threadPool, logger: logger, on: eventLoop)
        } catch {
            throw StoryStoreError.unreachable("cannot open \(path): \(plain(error))")
        }
        do {
            try await prepare(connection, migrations: migrations, path: path)
        } catch {
            try? await connection.close()
            throw Self.storeError(error, path: path)
        }
        let checkpointer: WALCheckpointer
        do {
            checkpointer = try await WALCheckpointer.open(path: path, logger: logger, eventLoop: eventLoop)
        } catch {
            try? await connection.close()
            throw StoryStoreError.unreachable("cannot open \(path) for its checkpoints: \(plain(error))")
        }
        return SQLiteStoryStore(path: path, connection: connection, checkpointer: checkpointer)
    }

    private init(path: String, connection: SQLiteConnection, checkpointer: WALCheckpointer) {
        self.path = path
        self.connection = connection
        self.checkpointer = checkpointer
    }

    /// Puts the file in WAL mode and applies the schema's steps it lacks (`StorySchema`),
    /// in one transaction.
    private static func prepare(_ connection: SQLiteConnection, migrations: [StoryMigration], path: String) async throws {
        // Not a database at all: SQLite says so on the first read.
        let mode = try await connection.query("PRAGMA journal_mode=WAL").first?.column("journal_mode")?.string
        guard mode == "wal" else { throw StoryStoreError.failed("\(path) cannot be put in WAL mode (it is in \(mode ?? "no") mode)") }
        _ = try await connection.query("PRAGMA synchronous=FULL")
        // No checkpoint inside a commit: the `WALCheckpointer` does them.
        _ = try await connection.query("PRAGMA wal_autocheckpoint=0")
        _ = try await connection.query("PRAGMA foreign_keys=OFF")
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            _ = try await connection.query(StorySchema.sqliteMeta)
            let found = try await connection.query("SELECT value FROM meta WHERE key = 'schema_version'").first?.column("value")?.integer
            for step in try StorySchema.steps(from: found.map { Int($0) }, of: migrations, place: path) {
                for statement in step.sqlite {
                    _ = try await connection.query(statement)
                }
                _ = try await connection.query("INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', \(step.version))")
            }
            // A write at once: a read-only file, directory or disk is found now, not at the first turn.
            _ = try await connection.query("INSERT OR REPLACE INTO meta(key, value) VALUES('opened_at', ?)",
                                           [.integer(Int(time(nil)))])
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    // MARK: - Reads

    public func registeredKey(of name: String) async throws -> StoryRegisteredKey? {
        try await serial {
            guard let row = try await self.connection.query("SELECT kind, bytes FROM keys WHERE name = ?", [.text(name)]).first else {
                return nil
            }
            return try Self.key(row, name: name)
        }
    }

    public func register(_ key: StoryRegisteredKey, for name: String) async throws {
        try await transaction { _ in
            let (kind, bytes) = Self.columns(of: key)
            _ = try await self.connection.query("INSERT OR REPLACE INTO keys(name, kind, bytes) VALUES(?, ?, ?)",
                                                [.text(name), .integer(kind), .blob(ByteBuffer(bytes: bytes))])
        }
    }

    public func match(_ id: StoryMatchID) async throws -> StoryMatch? {
        try await serial { try await self.read(id) }
    }

    public func matches(of name: String) async throws -> [StoryMatch] {
        try await serial {
            let rows = try await self.connection.query(
                "SELECT m.id, m.body FROM members JOIN matches m ON m.id = members.match_id WHERE members.name = ? ORDER BY m.id",
                [.text(name)])
            return try rows.map(self.decode)
        }
    }

    public func due(at now: UInt64, limit: Int) async throws -> [StoryMatchID] {
        try await serial {
            let rows = try await self.connection.query(
                "SELECT id FROM matches WHERE due_at IS NOT NULL AND due_at <= ? ORDER BY due_at, id LIMIT ?",
                [.integer(Int(clamping: now)), .integer(limit)])
            return rows.compactMap { $0.column("id")?.integer.map { StoryMatchID(UInt32(truncatingIfNeeded: $0)) } }
        }
    }

    public func matchCount() async throws -> Int {
        try await serial {
            // Through the small (open, id) index, not the rows' bodies.
            try await self.connection.query("SELECT COUNT(*) AS n FROM matches INDEXED BY matches_open").first?.column("n")?.integer ?? 0
        }
    }

    public func imported() async throws -> String? {
        try await serial {
            try await self.connection.query("SELECT value FROM meta WHERE key = 'imported'").first?.column("value")?.string
        }
    }

    /// One process uses this file: nothing else changes it.
    public func changes() -> AsyncStream<StoryMatchID> {
        AsyncStream { $0.finish() }
    }

    // MARK: - Writes

    public func apply(_ command: StoryCommand) async throws -> StoryMatch {
        try await transaction { transaction in try await StoryStoreRules.apply(command, in: transaction) }
    }

    public func importBook(_ matches: [StoryMatch], keys: [String: StoryRegisteredKey], source: String) async throws -> Int {
        let count = try await transaction { _ in
            // Many rows a statement: one thread-pool hop per batch, not per row.
            for batch in stride(from: 0, to: matches.count, by: 500) {
                let slice = matches[batch..<min(matches.count, batch + 500)]
                var binds: [SQLiteData] = []
                var memberBinds: [SQLiteData] = []
                for match in slice {
                    binds += Self.row(of: match)
                    for participant in match.participants { memberBinds += [.text(participant.name), .integer(Int(match.id.value))] }
                }
                _ = try await self.connection.query(
                    "INSERT INTO matches(id, open, due_at, body) VALUES " + Array(repeating: "(?, ?, ?, ?)", count: slice.count).joined(separator: ","),
                    binds)
                for members in stride(from: 0, to: memberBinds.count, by: 2000) {
                    let part = Array(memberBinds[members..<min(memberBinds.count, members + 2000)])
                    _ = try await self.connection.query(
                        "INSERT OR IGNORE INTO members(name, match_id) VALUES " + Array(repeating: "(?, ?)", count: part.count / 2).joined(separator: ","),
                        part)
                }
            }
            for (name, key) in keys {
                let (kind, bytes) = Self.columns(of: key)
                _ = try await self.connection.query("INSERT OR REPLACE INTO keys(name, kind, bytes) VALUES(?, ?, ?)",
                                                    [.text(name), .integer(kind), .blob(ByteBuffer(bytes: bytes))])
            }
            _ = try await self.connection.query("INSERT OR REPLACE INTO meta(key, value) VALUES('imported', ?)", [.text(source)])
            return matches.count
        }
        checkpointer.request()  // many pages at once: copied now, not 100 turns later
        return count
    }

    public func close() async {
        await gate.enter()
        await checkpointer.close()
        try? await connection.close()
        gate.leave()
    }

    // MARK: - Transactions

    /// `body` alone on the connection (no other statement of this store runs meanwhile);
    /// a database fault becomes a `StoryStoreError`, a refusal passes through as it is.
    private func serial<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await gate.enter()
        do {
            let value = try await body()
            gate.leave()
            return value
        } catch {
            gate.leave()
            throw Self.storeError(error, path: path)
        }
    }

    /// `body` in one `BEGIN IMMEDIATE` transaction, committed before this returns; rolled
    /// back if it throws (a refusal changes nothing).
    private func transaction<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T {
        try await serial {
            _ = try await self.connection.query("BEGIN IMMEDIATE")
            do {
                let value = try await body(Transaction(store: self))
                _ = try await self.connection.query("COMMIT")
                self.committed()
                return value
            } catch {
                _ = try? await self.connection.query("ROLLBACK")
                throw error
            }
        }
    }

    /// Counts a commit (inside `gate`), and asks for a checkpoint every `checkpointEvery`;
    /// the commit does not wait for it.
    private func committed() {
        commitsSinceCheckpoint += 1
        guard commitsSinceCheckpoint >= Self.checkpointEvery else { return }
        commitsSinceCheckpoint = 0
        checkpointer.request()
    }

    final class Transaction: StoryTransaction, @unchecked Sendable {  // used by one task, inside the gate
        let store: SQLiteStoryStore
        /// How many participants each match read here had: newcomers get a `members` row.
        var participants: [StoryMatchID: Int] = [:]

        init(store: SQLiteStoryStore) { self.store = store }

        func match(forUpdate id: StoryMatchID) async throws -> StoryMatch? {
            let match = try await store.read(id)
            if let match { participants[id] = match.participants.count }
            return match
        }

        func oldestOpen(excluding name: String) async throws -> StoryMatch? {
            let rows = try await store.connection.query(
                "SELECT id, body FROM matches WHERE open = 1 AND id NOT IN (SELECT match_id FROM members WHERE name = ?) ORDER BY id LIMIT 1",
                [.text(name)])
            guard let row = rows.first else { return nil }
            let match = try store.decode(row)
            participants[match.id] = match.participants.count
            return match
        }

        func nextID() async throws -> StoryMatchID {
            let next = try await store.connection.query("SELECT COALESCE(MAX(id), 0) + 1 AS next FROM matches").first?.column("next")?.integer ?? 1
            guard next <= Int(UInt32.max) else { throw StoryStoreError.failed("no match ids are left") }
            return StoryMatchID(UInt32(next))
        }

        func insert(_ match: StoryMatch) async throws {
            _ = try await store.connection.query("INSERT INTO matches(id, open, due_at, body) VALUES(?, ?, ?, ?)", SQLiteStoryStore.row(of: match))
            try await addMembers(match, from: 0)
        }

        func update(_ match: StoryMatch) async throws {
            let row = SQLiteStoryStore.row(of: match)
            _ = try await store.connection.query("UPDATE matches SET open = ?, due_at = ?, body = ? WHERE id = ?",
                                                 [row[1], row[2], row[3], row[0]])
            try await addMembers(match, from: participants[match.id] ?? 0)
        }

        private func addMembers(_ match: StoryMatch, from first: Int) async throws {
            for participant in match.participants.dropFirst(first) {
                _ = try await store.connection.query("INSERT OR IGNORE INTO members(name, match_id) VALUES(?, ?)",
                                                     [.text(participant.name), .integer(Int(match.id.value))])
            }
            participants[match.id] = match.participants.count
        }
    }

    // MARK: - Rows

    fileprivate func read(_ id: StoryMatchID) async throws -> StoryMatch? {
        let rows = try await connection.query("SELECT id, body FROM matches WHERE id = ?", [.integer(Int(id.value))])
        return try rows.first.map(decode)
    }

    fileprivate func decode(_ row: SQLiteRow) throws -> StoryMatch {
        let id = row.column("id")?.integer ?? 0
        guard let body = row.column("body")?.blob else {
            throw StoryStoreError.damaged("match \(id) in \(path) has no body")
        }
        do {
            let match = try StoryWire.match(from: Array(body.readableBytesView))
            guard match.id.value == id else { throw StoryStoreError.damaged("match \(id) in \(path) holds match \(match.id)") }
            return match
        } catch let error as StoryStoreError {
            throw error
        } catch {
            throw StoryStoreError.damaged("match \(id) in \(path) does not read back (\(error))")
        }
    }

    static func row(of match: StoryMatch) -> [SQLiteData] {
        [.integer(Int(match.id.value)), .integer(match.isOpen ? 1 : 0),
         match.dueAt.map { .integer(Int(clamping: $0)) } ?? .null, .blob(ByteBuffer(bytes: StoryWire.bytes(of: match)))]
    }

    static func columns(of key: StoryRegisteredKey) -> (Int, [UInt8]) {
        switch key {
        case .oldKeyDigest(let digest): (0, digest)
        case .publicKey(let key): (1, key)
        }
    }

    static func key(_ row: SQLiteRow, name: String) throws -> StoryRegisteredKey {
        guard let bytes = row.column("bytes")?.blob.map({ Array($0.readableBytesView) }) else {
            throw StoryStoreError.damaged("the key of \(name) has no bytes")
        }
        switch row.column("kind")?.integer {
        case 0: return .oldKeyDigest(bytes)
        case 1: return .publicKey(bytes)
        case let kind: throw StoryStoreError.damaged("the key of \(name) is of an unknown kind \(kind.map(String.init) ?? "none")")
        }
    }

    /// A store error in plain words: refusals (`StoryError`) and store errors pass as they are.
    static func storeError(_ error: any Error, path: String) -> any Error {
        if error is StoryError || error is StoryStoreError { return error }
        guard let sqlite = error as? SQLiteError else { return StoryStoreError.failed("\(path): \(error)") }
        switch sqlite.reason {
        case .full:
            return StoryStoreError.failed("the disk holding \(path) is full; nothing was written (free some space and try again)")
        case .readOnly, .readonlyCantLock, .readonlyDirectory, .readonlyInRecovery, .readonlyInRollback, .readonlyBackingMoved:
            return StoryStoreError.failed("\(path) is read-only; nothing was written")
        case .notADatabase:
            return StoryStoreError.damaged("\(path) is not an SQLite database")
        case .corrupt, .corruptIndex, .corruptVirtualTable, .corruptSequenceSchema:
            return StoryStoreError.damaged("\(path) is corrupt (\(sqlite.message))")
        case .cantOpen, .cantOpenDirectory, .cantOpenInvalidPath:
            return StoryStoreError.unreachable("cannot open \(path): \(sqlite.message)")
        default:
            return StoryStoreError.failed("\(path): \(sqlite.message)")
        }
    }
}

private func plain(_ error: any Error) -> String {
    (error as? SQLiteError)?.message ?? "\(error)"
}

/// One task at a time, in the order they came: an async lock (an actor alone would let a
/// second transaction start while the first awaits). A lock, not an actor: no hop to an
/// actor's executor between a request's steps.
final class StoreGate: @unchecked Sendable {  // its state is guarded by `lock`
    private let lock = NIOLock()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if busy {
                    waiting.append(continuation)
                    return false
                }
                busy = true
                return true
            }
            if now { continuation.resume() }
        }
    }

    func leave() {
        let next: CheckedContinuation<Void, Never>? = lock.withLock {
            if waiting.isEmpty {
                busy = false
                return nil
            }
            return waiting.removeFirst()
        }
        next?.resume()
    }
}

/// PASSIVE checkpoints of a store's write-ahead log, on a connection and a thread of their
/// own, so that no commit waits for one. `request()` never waits: requests made while a
/// checkpoint runs are one more checkpoint after it, not one each.
final class WALCheckpointer: @unchecked Sendable {  // `task` is set in init and cleared by `close` alone
    private let connection: SQLiteConnection
    private let thread: NIOThreadPool
    private let requests: AsyncStream<Void>.Continuation
    private var task: Task<Void, Never>?
    private let done = NIOLockedValueBox(0)

    /// Checkpoints the requests ran.
    var checkpoints: Int { done.withLockedValue { $0 } }

    static func open(path: String, logger: Logger, eventLoop: any EventLoop) async throws -> WALCheckpointer {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        do {
            let connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: thread, logger: logger, on: eventLoop)
            // The checkpoint syncs the log before copying it and the database file before the log
            // may start again: with synchronous=OFF on this connection a power loss could lose
            // committed turns.
            _ = try await connection.query("PRAGMA synchronous=FULL")
            return WALCheckpointer(connection: connection, thread: thread)
        } catch {
            try? await thread.shutdownGracefully()
            throw error
        }
    }

    private init(connection: SQLiteConnection, thread: NIOThreadPool) {
        self.connection = connection
        self.thread = thread
        let (stream, requests) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.requests = requests
        task = Task { [connection, done] in
            for await _ in stream {
                // A failed checkpoint is tried again at the next request; the log is durable meanwhile.
                _ = try? await connection.query("PRAGMA wal_checkpoint(PASSIVE)")
                done.withLockedValue { $0 += 1 }
            }
        }
    }

    func request() { requests.yield() }

    /// A PASSIVE checkpoint now, waited for: (frames in the log, frames copied to the database).
    func checkpoint() async throws -> (log: Int, copied: Int) {
        let row = try await connection.query("PRAGMA wal_checkpoint(PASSIVE)").first
        return (row?.column("log")?.integer ?? -1, row?.column("checkpointed")?.integer ?? -1)
    }

    /// After the checkpoint asked for last (if any) is done.
    func close() async {
        requests.finish()
        await task?.value
        task = nil
        try? await connection.close()
        try? await thread.shutdownGracefully()
    }
}
