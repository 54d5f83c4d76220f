#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapFiles
import SnapPlatform
import SQLiteNIO
import VaporCSQLite
import StoryEngine
import StoryProtocol

/// The story service's default store: one SQLite file (the SQLite sqlite-nio bundles), in
/// WAL mode with `synchronous=FULL`, so a transaction that returned is on disk. One
/// connection (`SQLiteHandle`) on one thread of the store's own: each call is one job on
/// that thread, a transaction's statements and the rules between them included, so a
/// turn crosses threads once there and once back (not once a statement), and calls are
/// serialised by the thread itself, in the order they came. Nothing runs on an event
/// loop or on Swift's cooperative pool. Rows hold a match as `StoryWire.bytes(of:)`;
/// nothing is kept in memory but SQLite's own page cache (and its prepared statements),
/// so memory does not grow with the matches stored.
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
public final class SQLiteStoryStore: StoryStore, @unchecked Sendable {  // `handle` and `commitsSinceCheckpoint` are touched on `thread` alone
    public let path: String
    /// One thread: the store's calls run there, one at a time.
    private let thread: NIOThreadPool
    private let handle: SQLiteHandle
    let checkpointer: WALCheckpointer
    /// Commits since the checkpointer was last asked.
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
    public static func open(path: String) async throws -> SQLiteStoryStore {
        try await open(path: path, migrations: StorySchema.migrations)
    }

    /// `open`, with the schema's steps given (a test's list, to try the mechanism).
    static func open(path: String, migrations: [StoryMigration]) async throws -> SQLiteStoryStore {
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
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        let handle: SendableHandle
        do {
            handle = try await thread.runIfActive {
                let handle: SQLiteHandle
                do { handle = try SQLiteHandle(path: path) } catch { throw StoryStoreError.unreachable("cannot open \(path): \(error)") }
                do {
                    try prepare(handle, migrations: migrations, path: path)
                } catch {
                    handle.close()
                    throw Self.storeError(error, path: path)
                }
                return SendableHandle(handle)
            }
        } catch {
            try? await thread.shutdownGracefully()
            throw error
        }
        let checkpointer: WALCheckpointer
        do {
            checkpointer = try await WALCheckpointer.open(path: path)
        } catch {
            _ = try? await thread.runIfActive { handle.handle.close() }
            try? await thread.shutdownGracefully()
            throw StoryStoreError.unreachable("cannot open \(path) for its checkpoints: \(error)")
        }
        return SQLiteStoryStore(path: path, thread: thread, handle: handle.handle, checkpointer: checkpointer)
    }

    private init(path: String, thread: NIOThreadPool, handle: SQLiteHandle, checkpointer: WALCheckpointer) {
        self.path = path
        self.thread = thread
        self.handle = handle
        self.checkpointer = checkpointer
    }

    /// Puts the file in WAL mode and applies the schema's steps it lacks (`StorySchema`),
    /// in one transaction.
    private static func prepare(_ handle: SQLiteHandle, migrations: [StoryMigration], path: String) throws {
        // Not a database at all: SQLite says so on the first read.
        let mode = try handle.rows("PRAGMA journal_mode=WAL").first?.column("journal_mode")?.string
        guard mode == "wal" else { throw StoryStoreError.failed("\(path) cannot be put in WAL mode (it is in \(mode ?? "no") mode)") }
        try handle.rows("PRAGMA synchronous=FULL")
        // No checkpoint inside a commit: the `WALCheckpointer` does them.
        try handle.rows("PRAGMA wal_autocheckpoint=0")
        try handle.rows("PRAGMA foreign_keys=OFF")
        try handle.transaction {
            try handle.rows(StorySchema.sqliteMeta)
            let found = try handle.rows("SELECT value FROM meta WHERE key = 'schema_version'").first?.column("value")?.integer
            for step in try StorySchema.steps(from: found.map { Int($0) }, of: migrations, place: path) {
                for statement in step.sqlite {
                    try handle.rows(statement)
                }
                try handle.rows("INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', \(step.version))")
            }
            // A write at once: a read-only file, directory or disk is found now, not at the first turn.
            try handle.rows("INSERT OR REPLACE INTO meta(key, value) VALUES('opened_at', ?)", [.integer(Int(time(nil)))])
        }
    }

    // MARK: - Reads

    public func registeredKey(of name: String) async throws -> StoryRegisteredKey? {
        try await onThread { handle in try self.registeredKey(of: name, handle) }
    }

    public func register(_ key: StoryRegisteredKey, for name: String) async throws {
        try await onThread { handle in try self.register(key, for: name, handle) }
    }

    public func match(_ id: StoryMatchID) async throws -> StoryMatch? {
        try await onThread { handle in try self.read(id, handle) }
    }

    public func matches(of name: String) async throws -> [StoryMatch] {
        try await onThread { handle in try self.matches(of: name, handle) }
    }

    /// The service's calls, each one job on the store's thread answered straight on `loop`:
    /// a turn crosses from the loop to this thread and back, no task between (StoryStore's
    /// `perform`).
    public func perform(_ call: StoryConnection.StoreCall, answeringOn loop: any EventLoop) -> EventLoopFuture<StoryConnection.StoreAnswer> {
        let path = self.path
        return thread.runIfActive(eventLoop: loop) { [self] () throws -> StoryConnection.StoreAnswer in
            switch call {
            case .registeredKey(let name): return .registeredKey(try registeredKey(of: name, handle))
            case .register(let key, let name):
                try register(key, for: name, handle)
                return .registered
            case .matches(let name): return .matches(try matches(of: name, handle))
            case .match(let id): return .match(try read(id, handle))
            case .apply(let command): return .applied(try apply(command, handle))
            }
        }.flatMapErrorThrowing { throw Self.storeError($0, path: path) }
    }

    private func registeredKey(of name: String, _ handle: SQLiteHandle) throws -> StoryRegisteredKey? {
        guard let row = try handle.rows("SELECT kind, bytes FROM keys WHERE name = ?", [.text(name)]).first else { return nil }
        return try Self.key(row, name: name)
    }

    private func register(_ key: StoryRegisteredKey, for name: String, _ handle: SQLiteHandle) throws {
        try transaction(handle) { handle in
            let (kind, bytes) = Self.columns(of: key)
            try handle.rows("INSERT OR REPLACE INTO keys(name, kind, bytes) VALUES(?, ?, ?)",
                            [.text(name), .integer(kind), .blob(ByteBuffer(bytes: bytes))])
        }
    }

    private func matches(of name: String, _ handle: SQLiteHandle) throws -> [StoryMatch] {
        try handle.rows(
            "SELECT m.id, m.body FROM members JOIN matches m ON m.id = members.match_id WHERE members.name = ? ORDER BY m.id",
            [.text(name)]).map(decode)
    }

    public func due(at now: UInt64, limit: Int) async throws -> [StoryMatchID] {
        try await onThread { handle in
            try handle.rows("SELECT id FROM matches WHERE due_at IS NOT NULL AND due_at <= ? ORDER BY due_at, id LIMIT ?",
                            [.integer(Int(clamping: now)), .integer(limit)])
                .compactMap { $0.column("id")?.integer.map { StoryMatchID(UInt32(truncatingIfNeeded: $0)) } }
        }
    }

    public func matchCount() async throws -> Int {
        try await onThread { handle in
            // Through the small (open, id) index, not the rows' bodies.
            try handle.rows("SELECT COUNT(*) AS n FROM matches INDEXED BY matches_open").first?.column("n")?.integer ?? 0
        }
    }

    public func imported() async throws -> String? {
        try await onThread { handle in
            try handle.rows("SELECT value FROM meta WHERE key = 'imported'").first?.column("value")?.string
        }
    }

    /// One process uses this file: nothing else changes it.
    public func changes() -> AsyncStream<StoryMatchID> {
        AsyncStream { $0.finish() }
    }

    /// `sql`'s rows, run on the store's thread between its calls (tests look inside).
    func query(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteValues] {
        try await onThread { handle in try handle.rows(sql, binds) }
    }

    // MARK: - Writes

    /// The rules (`StoryStoreRules.next`) driven with synchronous reads, the whole
    /// transaction one job on the store's thread.
    public func apply(_ command: StoryCommand) async throws -> StoryMatch {
        try await onThread { handle in try self.apply(command, handle) }
    }

    private func apply(_ command: StoryCommand, _ handle: SQLiteHandle) throws -> StoryMatch {
        try transaction(handle) { handle in
            var found: [StoryStoreRules.Found] = []
            while true {
                switch try StoryStoreRules.next(command, read: found) {
                case .read(.match(let id)): found.append(.match(try self.read(id, handle)))
                case .read(.oldestOpen(let name)):
                    let row = try handle.rows(
                        "SELECT id, body FROM matches WHERE open = 1 AND id NOT IN (SELECT match_id FROM members WHERE name = ?) ORDER BY id LIMIT 1",
                        [.text(name)]).first
                    found.append(.match(try row.map(self.decode)))
                case .read(.nextID):
                    let next = try handle.rows("SELECT COALESCE(MAX(id), 0) + 1 AS next FROM matches").first?.column("next")?.integer ?? 1
                    guard next <= Int(UInt32.max) else { throw StoryStoreError.failed("no match ids are left") }
                    found.append(.id(StoryMatchID(UInt32(next))))
                case .write(let writes, let answer):
                    for write in writes {
                        switch write {
                        case .insert(let match):
                            try handle.rows("INSERT INTO matches(id, open, due_at, body) VALUES(?, ?, ?, ?)", Self.row(of: match))
                            try Self.addMembers(match, after: 0, handle)
                        case .update(let match):
                            let row = Self.row(of: match)
                            try handle.rows("UPDATE matches SET open = ?, due_at = ?, body = ? WHERE id = ?", [row[1], row[2], row[3], row[0]])
                            // Newcomers (automatch) get their `members` row; those read already have one.
                            try Self.addMembers(match, after: Self.participants(read: found, of: match.id), handle)
                        }
                    }
                    return answer
                }
            }
        }
    }

    public func importBook(_ matches: [StoryMatch], keys: [String: StoryRegisteredKey], source: String) async throws -> Int {
        let count = try await transaction { handle in
            // Many rows a statement.
            for batch in stride(from: 0, to: matches.count, by: 500) {
                let slice = matches[batch..<min(matches.count, batch + 500)]
                var binds: [SQLiteData] = []
                var memberBinds: [SQLiteData] = []
                for match in slice {
                    binds += Self.row(of: match)
                    for participant in match.participants { memberBinds += [.text(participant.name), .integer(Int(match.id.value))] }
                }
                try handle.rows(
                    "INSERT INTO matches(id, open, due_at, body) VALUES " + Array(repeating: "(?, ?, ?, ?)", count: slice.count).joined(separator: ","),
                    binds)
                for members in stride(from: 0, to: memberBinds.count, by: 2000) {
                    let part = Array(memberBinds[members..<min(memberBinds.count, members + 2000)])
                    try handle.rows(
                        "INSERT OR IGNORE INTO members(name, match_id) VALUES " + Array(repeating: "(?, ?)", count: part.count / 2).joined(separator: ","),
                        part)
                }
            }
            for (name, key) in keys {
                let (kind, bytes) = Self.columns(of: key)
                try handle.rows("INSERT OR REPLACE INTO keys(name, kind, bytes) VALUES(?, ?, ?)",
                                [.text(name), .integer(kind), .blob(ByteBuffer(bytes: bytes))])
            }
            try handle.rows("INSERT OR REPLACE INTO meta(key, value) VALUES('imported', ?)", [.text(source)])
            return matches.count
        }
        checkpointer.request()  // many pages at once: copied now, not 100 turns later
        return count
    }

    public func close() async {
        // After every call before it (the thread takes them in order).
        _ = try? await thread.runIfActive { self.handle.close() }
        await checkpointer.close()
        try? await thread.shutdownGracefully()
    }

    // MARK: - Jobs

    /// `body` as one job on the store's thread; a database fault becomes a
    /// `StoryStoreError`, a refusal passes through as it is.
    private func onThread<T: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> T) async throws -> T {
        do {
            return try await thread.runIfActive { try body(self.handle) }
        } catch {
            throw Self.storeError(error, path: path)
        }
    }

    /// `body` in one `BEGIN IMMEDIATE` transaction, committed before this returns; rolled
    /// back if it throws (a refusal changes nothing). Every `checkpointEvery` commits the
    /// checkpointer is asked for a checkpoint; the commit does not wait for it.
    private func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> T) async throws -> T {
        try await onThread { handle in try self.transaction(handle, body) }
    }

    /// The same, on the store's thread already.
    private func transaction<T>(_ handle: SQLiteHandle, _ body: (SQLiteHandle) throws -> T) throws -> T {
        let value = try handle.transaction { try body(handle) }
        commitsSinceCheckpoint += 1
        if commitsSinceCheckpoint >= Self.checkpointEvery {
            commitsSinceCheckpoint = 0
            checkpointer.request()
        }
        return value
    }

    /// How many participants match `id` had when this transaction read it (0: not read).
    private static func participants(read found: [StoryStoreRules.Found], of id: StoryMatchID) -> Int {
        for case .match(let match?) in found where match.id == id { return match.participants.count }
        return 0
    }

    private static func addMembers(_ match: StoryMatch, after first: Int, _ handle: SQLiteHandle) throws {
        for participant in match.participants.dropFirst(first) {
            try handle.rows("INSERT OR IGNORE INTO members(name, match_id) VALUES(?, ?)",
                            [.text(participant.name), .integer(Int(match.id.value))])
        }
    }

    // MARK: - Rows

    private func read(_ id: StoryMatchID, _ handle: SQLiteHandle) throws -> StoryMatch? {
        try handle.rows("SELECT id, body FROM matches WHERE id = ?", [.integer(Int(id.value))]).first.map(decode)
    }

    private func decode(_ row: SQLiteValues) throws -> StoryMatch {
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

    static func key(_ row: SQLiteValues, name: String) throws -> StoryRegisteredKey {
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
        guard let sqlite = error as? SQLiteFault else { return StoryStoreError.failed("\(path): \(error)") }
        switch sqlite.primary {
        case SQLITE_FULL:
            return StoryStoreError.failed("the disk holding \(path) is full; nothing was written (free some space and try again)")
        case SQLITE_READONLY:
            return StoryStoreError.failed("\(path) is read-only; nothing was written")
        case SQLITE_NOTADB:
            return StoryStoreError.damaged("\(path) is not an SQLite database")
        case SQLITE_CORRUPT:
            return StoryStoreError.damaged("\(path) is corrupt (\(sqlite.message))")
        case SQLITE_CANTOPEN:
            return StoryStoreError.unreachable("cannot open \(path): \(sqlite.message)")
        default:
            return StoryStoreError.failed("\(path): \(sqlite.message)")
        }
    }
}

/// Carries a handle out of the job that opened it, to the store that alone uses it after.
private struct SendableHandle: @unchecked Sendable {  // handed over once, never shared
    let handle: SQLiteHandle
    init(_ handle: SQLiteHandle) { self.handle = handle }
}

/// PASSIVE checkpoints of a store's write-ahead log, on a connection and a thread of their
/// own, so that no commit waits for one. `request()` never waits: requests made while a
/// checkpoint runs are one more checkpoint after it, not one each.
final class WALCheckpointer: @unchecked Sendable {  // `handle` is touched on `thread` alone; the rest is locked
    private let thread: NIOThreadPool
    private let handle: SQLiteHandle
    /// Whether a checkpoint is asked for and not yet started.
    private let asked = NIOLockedValueBox(false)
    private let done = NIOLockedValueBox(0)

    /// Checkpoints the requests ran.
    var checkpoints: Int { done.withLockedValue { $0 } }

    static func open(path: String) async throws -> WALCheckpointer {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        do {
            let handle = try await thread.runIfActive {
                let handle = try SQLiteHandle(path: path)
                // The checkpoint syncs the log before copying it and the database file before the log
                // may start again: with synchronous=OFF on this connection a power loss could lose
                // committed turns.
                try handle.rows("PRAGMA synchronous=FULL")
                return SendableHandle(handle)
            }
            return WALCheckpointer(thread: thread, handle: handle.handle)
        } catch {
            try? await thread.shutdownGracefully()
            throw error
        }
    }

    private init(thread: NIOThreadPool, handle: SQLiteHandle) {
        self.thread = thread
        self.handle = handle
    }

    func request() {
        guard asked.withLockedValue({ (asked: inout Bool) -> Bool in
            defer { asked = true }
            return !asked
        }) else { return }
        thread.submit { [self] state in
            asked.withLockedValue { $0 = false }
            guard case .active = state else { return }
            // A failed checkpoint is tried again at the next request; the log is durable meanwhile.
            _ = try? handle.rows("PRAGMA wal_checkpoint(PASSIVE)")
            done.withLockedValue { $0 += 1 }
        }
    }

    /// A PASSIVE checkpoint now, waited for: (frames in the log, frames copied to the database).
    func checkpoint() async throws -> (log: Int, copied: Int) {
        try await thread.runIfActive { [self] in
            let row = try handle.rows("PRAGMA wal_checkpoint(PASSIVE)").first
            return (row?.column("log")?.integer ?? -1, row?.column("checkpointed")?.integer ?? -1)
        }
    }

    /// After the checkpoint asked for last (if any) is done (the thread takes its jobs in order).
    func close() async {
        _ = try? await thread.runIfActive { [self] in handle.close() }
        try? await thread.shutdownGracefully()
    }
}
