#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapMatchFiles
import SQLiteNIO

/// The index of a directory of match journals: one SQLite file beside them
/// (`index/index.sqlite`), what `snapcards history`, `snapcards stats` and a host's won counts read instead
/// of replaying every journal. The journals stay the truth: `refresh()` reads any journal
/// the index lacks or holds at another size or time (copied in, written by an older snap,
/// grown since), and forgets removed ones; a file that is not a usable index is deleted and
/// built again from the journals, never fatal. Statements run on sqlite-nio's thread pool
/// and journals are folded on threads of the index's own at a lower priority, never on the
/// caller's thread.
///
/// Schema (version 1; another version is dropped and rebuilt):
/// - `meta(key PRIMARY KEY, value)`: `schema_version`; `directory_modified`, the journals'
///   directory's modification time at the last full look (ns), once it is 2 s old.
/// - `journals(name PRIMARY KEY, size, modified, readable, started_at, host, players,
///   winners, ended, broken, damage_offset, damage_record)`: one row a match (players and
///   winners joined by U+001F, which no player name holds).
/// - `rounds(journal, round, winner)`: one row a round.
/// - `calls(journal, round, player, right_calls, wrong_calls, late_calls, reactions)`: one
///   row a player and round; `reactions` the correct calls' reaction times in µs, comma-separated.
public final class MatchIndex: @unchecked Sendable {  // the connection is Sendable; one caller at a time
    public static let schemaVersion = 2
    /// In a directory of its own: SQLite's files come and go there, never in the journals'
    /// directory, whose modification time says whether a journal was added or removed.
    public static let fileName = "index/index.sqlite"
    public let directory: String
    private let connection: SQLiteConnection
    private static let separator: Character = "\u{1F}"

    /// The index file of `directory`.
    public static func path(in directory: String) -> String { directory + "/" + fileName }

    private init(directory: String, connection: SQLiteConnection) {
        self.directory = directory
        self.connection = connection
    }

    /// Opens the index of the journals in `directory`, runs `body` with it and closes it. An
    /// index file that is damaged, or not one, is deleted and built again (`onWarning` hears
    /// why); one that cannot be written (a read-only directory) is kept in memory for this call.
    public static func using<T: Sendable>(directory: String, onWarning: @Sendable (String) -> Void = { _ in },
                                          _ body: (MatchIndex) async throws -> T) async throws -> T {
        // One use of a directory's index at a time in this process: two connections of one
        // process would only wait for each other's locks.
        await IndexGate.shared.enter(directory)
        do {
            let result = try await usingAlone(directory: directory, onWarning: onWarning, body)
            IndexGate.shared.leave(directory)
            return result
        } catch {
            IndexGate.shared.leave(directory)
            throw error
        }
    }

    private static func usingAlone<T: Sendable>(directory: String, onWarning: @Sendable (String) -> Void,
                                                _ body: (MatchIndex) async throws -> T) async throws -> T {
        let file = path(in: directory)
        mkdir(directory + "/index", 0o700)  // exists already, or SQLite says why it cannot open
        do {
            return try await attempt(directory, .file(path: file), body)
        } catch let error as SQLiteError where isBusy(error) {
            throw error
        } catch let error as SQLiteError where cannotWrite(error) {
            onWarning("the match index \(file) cannot be written (\(error.message)); it is built in memory this time")
            return try await attempt(directory, .memory, body)
        } catch let error as SQLiteError {
            onWarning("the match index \(file) is damaged (\(error.message)); it is built again from the journals")
            for suffix in ["", "-wal", "-shm"] { unlink(file + suffix) }
            return try await attempt(directory, .file(path: file), body)
        }
    }

    private static func attempt<T>(_ directory: String, _ storage: SQLiteConnection.Storage,
                                   _ body: (MatchIndex) async throws -> T) async throws -> T {
        var logger = Logger(label: "snap.history.sqlite")
        logger.logLevel = .warning
        let connection = try await SQLiteConnection.open(storage: storage, threadPool: sqliteThreads, logger: logger,
                                                          on: MultiThreadedEventLoopGroup.singleton.any())
        let index = MatchIndex(directory: directory, connection: connection)
        do {
            try await index.prepare()
            let result = try await body(index)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The statements' threads: their own, so that a statement waiting for another process's
    /// lock never holds a thread that a journal's fold (on NIO's pool) needs, nor the reverse.
    private static let sqliteThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    private static func isBusy(_ error: SQLiteError) -> Bool {
        let reason = "\(error.reason)"
        return reason.hasPrefix("busy") || reason.hasPrefix("locked")
    }

    private static func cannotWrite(_ error: SQLiteError) -> Bool {
        let reason = "\(error.reason)".lowercased()
        return reason.hasPrefix("readonly") || reason.hasPrefix("cantopen") || reason == "permission" || reason == "auth"
    }

    private func prepare() async throws {
        _ = try await connection.query("PRAGMA busy_timeout=10000")
        // A cache of the journals: losing its last transaction to a power cut costs a re-read.
        _ = try await connection.query("PRAGMA journal_mode=WAL")
        _ = try await connection.query("PRAGMA synchronous=NORMAL")
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            _ = try await connection.query("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID")
            let found = try await connection.query("SELECT value FROM meta WHERE key = 'schema_version'").first?.column("value")?.integer
            if found != Self.schemaVersion {
                for statement in [
                    "DROP TABLE IF EXISTS journals", "DROP TABLE IF EXISTS rounds", "DROP TABLE IF EXISTS calls",
                    "DELETE FROM meta WHERE key = 'directory_modified'",
                    """
                    CREATE TABLE journals(name TEXT PRIMARY KEY, size INTEGER NOT NULL, modified INTEGER NOT NULL,
                        readable INTEGER NOT NULL, started_at INTEGER, host TEXT, players TEXT, winners TEXT,
                        ended TEXT, broken TEXT, damage_offset INTEGER, damage_record INTEGER) WITHOUT ROWID
                    """,
                    "CREATE TABLE rounds(journal TEXT NOT NULL, round INTEGER NOT NULL, winner TEXT, PRIMARY KEY(journal, round)) WITHOUT ROWID",
                    """
                    CREATE TABLE calls(journal TEXT NOT NULL, round INTEGER NOT NULL, player TEXT NOT NULL,
                        right_calls INTEGER NOT NULL, wrong_calls INTEGER NOT NULL, late_calls INTEGER NOT NULL,
                        reactions TEXT NOT NULL, PRIMARY KEY(journal, round, player)) WITHOUT ROWID
                    """,
                    "CREATE INDEX calls_player ON calls(player)",
                    "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', \(Self.schemaVersion))",
                ] {
                    _ = try await connection.query(statement)
                }
            }
            // Every table read once: a file whose pages are damaged says so now, not halfway.
            _ = try await connection.query("SELECT (SELECT COUNT(*) FROM journals), (SELECT COUNT(*) FROM rounds), (SELECT COUNT(*) FROM calls)")
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    // MARK: - Keeping up with the journals

    /// What a `refresh` did.
    public struct Refresh: Sendable, Equatable {
        /// Journals read (new to the index, or changed since it read them).
        public var indexed = 0
        /// Rows dropped for journals no longer in the directory.
        public var removed = 0

        public init(indexed: Int = 0, removed: Int = 0) {
            (self.indexed, self.removed) = (indexed, removed)
        }
    }

    /// Reads every journal in the directory the index lacks, or holds at another size or
    /// modification time, and forgets the ones removed. `excluding`: a journal being written
    /// now (a host's own), left for its host to index.
    @discardableResult
    public func refresh(excluding: String? = nil) async throws -> Refresh {
        // Taken before the directory is read: a journal added meanwhile makes it differ next time.
        let directoryModified = Self.fileStat(directory).modified
        let stored = try await connection.query("SELECT value FROM meta WHERE key = 'directory_modified'").first?.column("value")?.integer
        // No journal added, removed or renamed since the last full look: only the journals
        // with no end can have grown (a host appends until its match ends), so only they are
        // looked at. A finished journal changed in place is seen by `rebuild()`.
        let unchangedNames = stored.map { Int($0) } == directoryModified && directoryModified >= 0
        var known: [String: (size: Int, modified: Int)] = [:]
        for row in try await connection.query("SELECT name, size, modified FROM journals" + (unchangedNames ? " WHERE ended IS NULL" : "")) {
            guard let name = row.column("name")?.string else { continue }
            known[name] = (Int(row.column("size")?.integer ?? -1), Int(row.column("modified")?.integer ?? -1))
        }
        // The directory's listing and a stat a journal: file system work, on NIO's thread pool.
        let (stale, present) = try await NIOThreadPool.singleton.runIfActive { [directory, known] in
            var stale: [(path: String, name: String, size: Int, modified: Int)] = []
            var present = Set<String>()
            let paths = unchangedNames ? known.keys.sorted().map { directory + "/" + $0 } : MatchJournal.files(in: directory)
            for path in paths where path != excluding {
                let name = Self.name(of: path)
                let (size, modified) = Self.fileStat(path)
                if size < 0, unchangedNames { continue }  // gone after all: forgotten below
                present.insert(name)
                if let row = known[name], row.size == size, row.modified == modified { continue }
                stale.append((path, name, size, modified))
            }
            return (stale, present)
        }
        let gone = known.keys.filter { !present.contains($0) && directory + "/" + $0 != excluding }
        // A directory changed within the last 2 s may change again within its clock's tick.
        let settled = directoryModified >= 0 && directoryModified < (Int(time(nil)) - 2) * 1_000_000_000
        _ = try await connection.query(settled
            ? "INSERT OR REPLACE INTO meta(key, value) VALUES('directory_modified', \(directoryModified))"
            : "DELETE FROM meta WHERE key = 'directory_modified'")
        var result = Refresh(indexed: 0, removed: gone.count)
        if !gone.isEmpty {
            try await transaction {
                for batch in stride(from: 0, to: gone.count, by: 500) {
                    try await self.delete(Array(gone[batch..<min(gone.count, batch + 500)]))
                }
            }
        }
        // Read in batches on the folding threads, each core at once; written a batch a transaction.
        for batch in stride(from: 0, to: stale.count, by: 256) {
            let slice = Array(stale[batch..<min(stale.count, batch + 256)])
            let facts = try await Self.fold(slice)
            try await store(facts)
            result.indexed += facts.count
        }
        return result
    }

    /// The threads that fold journals into facts, one a core. Building an index from years
    /// of journals is work nobody watches happen: these threads run at a lower priority (nice
    /// 10) than the window's and the host's loop, so that it takes the cores only when those
    /// do not need them (`snap-bench ui`'s Host Game rows measure the window meanwhile).
    private static let foldingThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(1, System.coreCount))
        pool.start()
        return pool
    }()

    /// `files` folded into facts, in their order, on the folding threads.
    private static func fold(_ files: [(path: String, name: String, size: Int, modified: Int)]) async throws -> [MatchFacts] {
        let parts = max(1, min(files.count, System.coreCount))
        let per = (files.count + parts - 1) / parts
        return try await withThrowingTaskGroup(of: (Int, [MatchFacts]).self) { group in
            for part in 0..<parts {
                let chunk = Array(files[min(files.count, part * per)..<min(files.count, (part + 1) * per)])
                group.addTask {
                    let facts = try await foldingThreads.runIfActive {
                        // On Linux a nice value is each thread's own (setpriority's "process" 0
                        // is the calling thread): this lowers only the folding thread.
                        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
                        return chunk.map { MatchFacts.read(path: $0.path, name: $0.name, size: $0.size, modified: $0.modified) }
                    }
                    return (part, facts)
                }
            }
            var byPart: [[MatchFacts]] = Array(repeating: [], count: parts)
            for try await (part, facts) in group { byPart[part] = facts }
            return byPart.flatMap { $0 }
        }
    }

    /// Reads one journal into the index again (a host's, a round having ended).
    public func update(_ path: String) async throws {
        let (size, modified) = Self.fileStat(path)
        let name = Self.name(of: path)
        let facts = try await NIOThreadPool.singleton.runIfActive {
            MatchFacts.read(path: path, name: name, size: size, modified: modified)
        }
        try await store([facts])
    }

    /// Forgets everything and reads every journal again (`snapcards history --reindex`).
    @discardableResult
    public func rebuild() async throws -> Refresh {
        try await transaction {
            for table in ["journals", "rounds", "calls"] { _ = try await self.connection.query("DELETE FROM \(table)") }
            _ = try await self.connection.query("DELETE FROM meta WHERE key = 'directory_modified'")
        }
        return try await refresh()
    }

    private func store(_ facts: [MatchFacts]) async throws {
        try await transaction {
            try await self.delete(facts.map(\.name))
            var journals: [SQLiteData] = []
            var rounds: [SQLiteData] = []
            var calls: [SQLiteData] = []
            for fact in facts {
                let match = fact.match
                journals += [.text(fact.name), .integer(fact.size), .integer(fact.modified), .integer(match == nil ? 0 : 1),
                             match?.startedAt.map { .integer(Int(clamping: $0)) } ?? .null,
                             match.map { .text($0.hostName) } ?? .null,
                             match.map { .text($0.players.joined(separator: String(Self.separator))) } ?? .null,
                             match.map { .text($0.winners.joined(separator: String(Self.separator))) } ?? .null,
                             match?.ended.map { .text($0) } ?? .null, match?.broken.map { .text($0) } ?? .null,
                             match?.damage.map { .integer($0.offset) } ?? .null, match?.damage.map { .integer($0.record) } ?? .null]
                for round in match?.rounds ?? [] {
                    rounds += [.text(fact.name), .integer(round.number), round.winner.map { .text($0) } ?? .null]
                    for player in round.calls {
                        calls += [.text(fact.name), .integer(round.number), .text(player.player), .integer(player.right),
                                  .integer(player.wrong), .integer(player.tooLate),
                                  .text(player.reactions.map(String.init).joined(separator: ","))]
                    }
                }
            }
            try await self.insert("journals", columns: 12, journals)
            try await self.insert("rounds", columns: 3, rounds)
            try await self.insert("calls", columns: 7, calls)
        }
    }

    /// Many rows a statement: one thread-pool hop per batch, not per row.
    private func insert(_ table: String, columns: Int, _ values: [SQLiteData]) async throws {
        let rowsPerStatement = 4_000 / columns
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ",") + ")"
        var start = 0
        while start < values.count {
            let end = min(values.count, start + rowsPerStatement * columns)
            let rows = (end - start) / columns
            _ = try await connection.query("INSERT OR REPLACE INTO \(table) VALUES " + Array(repeating: row, count: rows).joined(separator: ","),
                                           Array(values[start..<end]))
            start = end
        }
    }

    private func delete(_ names: [String]) async throws {
        guard !names.isEmpty else { return }
        let marks = Array(repeating: "?", count: names.count).joined(separator: ",")
        let binds = names.map { SQLiteData.text($0) }
        _ = try await connection.query("DELETE FROM journals WHERE name IN (\(marks))", binds)
        _ = try await connection.query("DELETE FROM rounds WHERE journal IN (\(marks))", binds)
        _ = try await connection.query("DELETE FROM calls WHERE journal IN (\(marks))", binds)
    }

    private func transaction(_ body: () async throws -> Void) async throws {
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            try await body()
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    // MARK: - Reading

    /// One journal as the index holds it: what a `snapcards history` line shows.
    public struct Entry: Sendable, Equatable {
        public var name: String
        /// nil: the file is not a readable match journal.
        public var match: Listed?

        public struct Listed: Sendable, Equatable {
            /// nil: the match never started.
            public var startedAt: UInt64?
            public var hostName: String
            public var players: [String]
            public var winners: [String]
            public var ended: String?
            public var broken: String?
            public var damage: MatchFacts.Damage?
        }
    }

    /// Every journal indexed, oldest first (their names sort by start time).
    public func entries() async throws -> [Entry] {
        let rows = try await connection.query(
            "SELECT name, readable, started_at, host, players, winners, ended, broken, damage_offset, damage_record FROM journals")
        var entries: [Entry] = []
        entries.reserveCapacity(rows.count)
        for row in rows {
            guard let name = row.column("name")?.string else { continue }
            guard row.column("readable")?.integer == 1 else {
                entries.append(Entry(name: name, match: nil))
                continue
            }
            let damage = row.column("damage_offset")?.integer.flatMap { offset in
                row.column("damage_record")?.integer.map { MatchFacts.Damage(offset: offset, record: $0) }
            }
            entries.append(Entry(name: name, match: Entry.Listed(
                startedAt: row.column("started_at")?.integer.map { UInt64(clamping: $0) },
                hostName: row.column("host")?.string ?? "",
                players: Self.split(row.column("players")?.string), winners: Self.split(row.column("winners")?.string),
                ended: row.column("ended")?.string, broken: row.column("broken")?.string, damage: damage)))
        }
        entries.sort { $0.name < $1.name }
        return entries
    }

    /// Rounds won by each player name, except in the journal at `excluding`.
    public func roundsWon(excluding: String? = nil) async throws -> [String: Int] {
        var wins: [String: Int] = [:]
        let rows = try await connection.query(
            "SELECT winner, COUNT(*) AS n FROM rounds WHERE winner IS NOT NULL AND journal <> ? GROUP BY winner",
            [.text(excluding.map(Self.name(of:)) ?? "")])
        for row in rows {
            if let name = row.column("winner")?.string, let count = row.column("n")?.integer { wins[name] = count }
        }
        return wins
    }

    /// Every round of every started match, oldest first, with each player's calls (only
    /// `player`'s, when given): what `snapcards stats` is computed from.
    public func rounds(of player: String? = nil) async throws -> [IndexedRound] {
        var byKey: [String: [Int: [MatchFacts.Calls]]] = [:]
        let callRows = try await connection.query(
            "SELECT journal, round, player, right_calls, wrong_calls, late_calls, reactions FROM calls"
                + (player == nil ? "" : " WHERE player = ?"), player.map { [.text($0)] } ?? [])
        for row in callRows {
            guard let journal = row.column("journal")?.string, let round = row.column("round")?.integer,
                  let name = row.column("player")?.string else { continue }
            let reactions = (row.column("reactions")?.string ?? "").split(separator: ",").compactMap { UInt64($0) }
            byKey[journal, default: [:]][round, default: []].append(MatchFacts.Calls(
                player: name, right: row.column("right_calls")?.integer ?? 0, wrong: row.column("wrong_calls")?.integer ?? 0,
                tooLate: row.column("late_calls")?.integer ?? 0, reactions: reactions))
        }
        var rounds: [IndexedRound] = []
        let rows = try await connection.query(
            "SELECT r.journal AS journal, r.round AS round, r.winner AS winner, j.started_at AS started_at, j.players AS players "
                + "FROM rounds r JOIN journals j ON j.name = r.journal")
        for row in rows {
            guard let journal = row.column("journal")?.string, let number = row.column("round")?.integer else { continue }
            rounds.append(IndexedRound(journal: journal, startedAt: UInt64(clamping: row.column("started_at")?.integer ?? 0),
                                       players: Self.split(row.column("players")?.string), number: number,
                                       winner: row.column("winner")?.string, calls: byKey[journal]?[number] ?? []))
        }
        rounds.sort { $0.journal != $1.journal ? $0.journal < $1.journal : $0.number < $1.number }
        return rounds
    }

    // MARK: - Files

    static func name(of path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }

    /// Size and modification time (ns); (-1, -1) for a file that cannot be examined.
    static func fileStat(_ path: String) -> (size: Int, modified: Int) {
        var info = Glibc.stat()
        guard stat(path, &info) == 0 else { return (-1, -1) }
        return (Int(info.st_size), Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
    }

    private static func split(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }
}

/// One round as `MatchIndex.rounds(of:)` gives it.
public struct IndexedRound: Sendable, Equatable {
    public var journal: String
    public var startedAt: UInt64
    /// Everyone at the match's table.
    public var players: [String]
    public var number: Int
    public var winner: String?
    public var calls: [MatchFacts.Calls]
}

/// The index as a host's `MatchHistory`: won counts from it (after indexing what it lacks),
/// and this match's rows written again when a round ends; in tasks that only await (files
/// are read on NIO's thread pool, statements run on the index's own threads).
public struct IndexedHistory: MatchHistory {
    private let onWarning: @Sendable (String) -> Void

    public init(onWarning: @escaping @Sendable (String) -> Void = { _ in }) {
        self.onWarning = onWarning
    }

    public func roundsWon(in directory: String, excluding: String,
                          then: @escaping @Sendable (Result<[String: Int], any Error>) -> Void) {
        let onWarning = self.onWarning
        Task {
            do {
                then(.success(try await MatchIndex.using(directory: directory, onWarning: onWarning) { index in
                    try await index.refresh(excluding: excluding)
                    return try await index.roundsWon(excluding: excluding)
                }))
            } catch {
                then(.failure(error))
            }
        }
    }

    public func journalGrew(_ path: String) {
        let onWarning = self.onWarning
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        Task {
            do {
                try await MatchIndex.using(directory: directory.isEmpty ? "." : directory, onWarning: onWarning) { index in
                    try await index.update(path)
                }
            } catch {
                onWarning("the match index was not updated (\(error)); the next read indexes the journal")
            }
        }
    }
}

/// Turns at a directory's index, in the order asked: a turn ends by handing it to the next.
/// A lock, not an actor: a turn is handed over without a hop to another executor.
private final class IndexGate: @unchecked Sendable {  // its state is guarded by `lock`
    static let shared = IndexGate()
    private let lock = NIOLock()
    private var taken: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    func enter(_ key: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if taken.insert(key).inserted { return true }
                waiting[key, default: []].append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func leave(_ key: String) {
        let next: CheckedContinuation<Void, Never>? = lock.withLock {
            guard var queue = waiting[key], !queue.isEmpty else {
                taken.remove(key)
                return nil
            }
            let next = queue.removeFirst()
            waiting[key] = queue.isEmpty ? nil : queue
            return next
        }
        next?.resume()
    }
}
