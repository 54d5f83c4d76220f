import Foundation
import Glibc
import NIOCore
import SnapTestSupport
import SQLiteNIO
import StoryEngine
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores
import StoryStoresPostgres

/// What only the SQLite store does, on real files: its name, WAL mode, a database from
/// before the schema's steps, and a read-only or foreign file refused in words. What every
/// store does is `StoryStoreContractTests`.
@Suite("SQLite story store", .blocksThreads, .serialized)
struct SQLiteStoryStoreTests {
    func path() -> String { scratchDirectory("sqlite") + "/story.sqlite" }

    /// The schema as snap wrote it before the schema was a list of steps (word for word).
    static let schemaBeforeSteps = [
        "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID",
        "CREATE TABLE matches(id INTEGER PRIMARY KEY, open INTEGER NOT NULL, due_at INTEGER NULL, body BLOB NOT NULL)",
        "CREATE INDEX matches_open ON matches(open, id)",
        "CREATE INDEX matches_due ON matches(due_at) WHERE due_at IS NOT NULL",
        "CREATE TABLE members(name TEXT NOT NULL, match_id INTEGER NOT NULL, PRIMARY KEY(name, match_id)) WITHOUT ROWID",
        "CREATE TABLE keys(name TEXT PRIMARY KEY, kind INTEGER NOT NULL, bytes BLOB NOT NULL) WITHOUT ROWID",
        "INSERT INTO meta(key, value) VALUES('schema_version', 1)",
    ]

    /// Every table and index of the file at `path`, as SQLite keeps their definitions.
    func schema(_ path: String) async throws -> [String] {
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        let rows = try await connection.query("SELECT type, name, sql FROM sqlite_master ORDER BY name")
        try await connection.close()
        return rows.map { "\($0.column("type")?.string ?? "") \($0.column("name")?.string ?? ""): \($0.column("sql")?.string ?? "")" }
    }

    @Test("a database made before the schema had steps is at version 1: opened as it is, the same tables as a new one")
    func madeBeforeSteps() async throws {
        let old = path()
        let connection = try await SQLiteConnection.open(storage: .file(path: old))
        for statement in Self.schemaBeforeSteps { _ = try await connection.query(statement) }
        let body = StoryWire.bytes(of: try StoryMatch.opened(StoryMatchID(1), by: .create(starter: "Ann", others: ["Bob"], title: "Old", at: 1)))
        _ = try await connection.query("INSERT INTO matches(id, open, due_at, body) VALUES(1, 0, NULL, ?)", [.blob(ByteBuffer(bytes: body))])
        _ = try await connection.query("INSERT INTO members(name, match_id) VALUES('Ann', 1), ('Bob', 1)")
        try await connection.close()
        let before = try await schema(old)

        let store = try await SQLiteStoryStore.open(path: old)
        #expect(try await store.match(StoryMatchID(1))?.title == "Old")
        #expect(try await store.apply(.create(starter: "Bob", others: ["Ann"], title: "New", at: 2)).id == StoryMatchID(2))
        #expect(try await store.matches(of: "Ann").map(\.id) == [StoryMatchID(1), StoryMatchID(2)])
        await store.close()
        #expect(try await schema(old) == before, "opening it changed its tables")

        let new = path()
        await (try await SQLiteStoryStore.open(path: new)).close()
        #expect(try await schema(new) == before, "a new database's tables differ from the old ones")
    }

    @Test("a read-only database, and a file that is no database, are refused in plain words")
    func readOnly() async throws {
        let file = path()
        let store = try await SQLiteStoryStore.open(path: file)
        _ = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        await store.close()
        if getuid() != 0 {
            chmod(file, 0o444)
            do {
                await (try await SQLiteStoryStore.open(path: file)).close()
                Issue.record("a read-only file was opened for writing")
            } catch let error as StoryStoreError {
                #expect(error.description.contains("read-only"), "\(error)")
            }
            chmod(file, 0o644)
        }
        // Root writes any file it may: SQLite's own read-only mode stands in for the
        // permission, and gives the words a read-only disk would.
        do {
            await (try await SQLiteStoryStore.open(path: "file:\(file)?mode=ro")).close()
            Issue.record("a read-only database was opened for writing")
        } catch let error as StoryStoreError {
            #expect(error.description.contains("read-only"), "\(error)")
        }
        let garbage = scratchDirectory("sqlite") + "/garbage.sqlite"
        #expect(FileManager.default.createFile(atPath: garbage, contents: Data(repeating: 0x41, count: 4096)))
        await #expect(throws: StoryStoreError.damaged("\(garbage) is not an SQLite database")) {
            _ = try await SQLiteStoryStore.open(path: garbage)
        }
    }

    /// Bytes of the file at `path` (0: none).
    func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    @Test("the write-ahead log is checkpointed off the commit path: commits never checkpoint, the checkpointer does, and the log starts again rather than growing")
    func checkpointsOffTheCommitPath() async throws {
        let file = path()
        let store = try await SQLiteStoryStore.open(path: file)
        // The connection that commits never checkpoints inside a commit.
        let automatic = try await store.query("PRAGMA wal_autocheckpoint").first?.column("wal_autocheckpoint")?.integer
        #expect(automatic == 0)
        var match = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        var sizes: [Int] = []
        for round in 0..<5 {
            for turn in 0..<120 {
                if match.ended { match = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1)) }
                match = try await store.apply(.turn(match.id, name: match.participants[match.current!].name, text: "w\(round)x\(turn)", at: 2))
            }
            // Everything committed is copied: the next commit writes the log from its start.
            let (log, copied) = try await store.checkpointer.checkpoint()
            #expect(log == copied && log > 0, "round \(round): \(copied) of \(log) frames copied")
            sizes.append(size(file + "-wal"))
        }
        await store.close()
        // 600 turns without a checkpoint leave a log about five times the first round's.
        #expect(sizes.allSatisfy { $0 <= 2 * sizes[0] }, "the log grew: \(sizes) bytes after each round")
        // 601 commits: the checkpointer was asked six times; it ran at least once, off the commits.
        #expect(store.checkpointer.checkpoints >= 1)
        let reopened = try await SQLiteStoryStore.open(path: file)
        #expect(try await reopened.match(match.id) == match, "the last turn did not survive the checkpoints")
        await reopened.close()
    }

    @Test("openStoryStore: a postgres URL opens PostgreSQL with the driver given (here nothing listens: unreachable, in words), and without one says so; a malformed one is refused")
    func postgresURLs() async throws {
        do {
            _ = try await openStoryStore("postgres://snap@127.0.0.1:1/story", postgres: PostgresStoryStore.opener)
            Issue.record("a postgres URL with no server was taken")
        } catch {
            #expect("\(error)".contains("the story service cannot reach its database (postgres 127.0.0.1:1/story"), "\(error)")
            #expect(!"\(error)".contains("no PostgreSQL driver"), "\(error)")
        }
        do {
            _ = try await openStoryStore("postgres://snap@127.0.0.1:1/story")
            Issue.record("a postgres URL was taken without a driver")
        } catch {
            #expect("\(error)" == "the story service cannot reach its database (postgres 127.0.0.1:1/story: this program links no PostgreSQL driver (snapcards-story-postgres does)); try again", "\(error)")
        }
        do {
            _ = try await openStoryStore("postgres://snap:secret@127.0.0.1/story")
            Issue.record("a URL with a password was taken")
        } catch {
            #expect("\(error)".contains("PGPASSWORD") && !"\(error)".contains("secret"), "\(error)")
        }
    }
}
