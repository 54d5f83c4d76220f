#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import NIOCore
import NIOPosix
import SnapFiles
import SnapJournal
import SnapPlatform
import StoryEngine
import StoryLink
import StoryProtocol
import StoryStores

/// The store `snapcards story serve --database VALUE` names: an SQLite file path (default
/// `$XDG_STATE_HOME/snap/story/story.sqlite`) or a `postgres://` URL, opened with `postgres`
/// (`PostgresStoryStore.opener`; nil where no PostgreSQL driver is linked, as in snapcards).
public func openStoryStore(_ value: String?, postgres: PostgresStoreOpener? = nil,
                           environment: [String: String] = currentEnvironment()) async throws -> any StoryStore {
    if let value, PostgresURL.isPostgres(value) {
        let url = try PostgresURL(value)
        guard let postgres else {
            throw StoryStoreError.unreachable("postgres \(url): this program links no PostgreSQL driver (snapcards-story-postgres does)")
        }
        // The password, if the server wants one, from PGPASSWORD: never from the URL.
        return try await postgres(url, environment["PGPASSWORD"])
    }
    let path: String
    if let value {
        guard !value.isEmpty else { throw StoryStoreError.unreachable("--database needs a file path or a postgres:// URL") }
        path = value
    } else {
        let directory = storyStateDirectory(environment: environment)
        if let failure = makePrivateDirectories(directory) {
            throw StoryStoreError.unreachable("cannot create \(failure.directory): \(String(cString: strerror(failure.errno)))")
        }
        path = SQLiteStoryStore.defaultPath(environment: environment)
    }
    return try await SQLiteStoryStore.open(path: path)
}

/// What an old story journal (`story.journal`, before the database) holds, replayed by
/// the old code path: `StoryHost.replay` (StoryBook, and each version 1 key as its digest).
public struct StoryJournalImport: Sendable {
    public var matches: [StoryMatch]
    public var keys: [String: StoryRegisteredKey]
    /// Records that could not be applied, and a torn or damaged tail, in words.
    public var problems: [String]

    /// Reads the journal at `path` (never changing it). `turnSeconds`: matches still being
    /// written that had no deadline get this one, starting at `now`.
    public init(path: String, turnSeconds: UInt64, now: UInt64, checks: StoryKeyChecks = .live) throws {
        let bytes = try Journal.bytes(atPath: path)
        let contents = try Journal.read(bytes, path: path)
        guard contents.kind == StoryRecord.journalKind else {
            throw JournalError.notAJournal(path, "it holds \(contents.kind), not \(StoryRecord.journalKind)")
        }
        var host = StoryHost(checks: checks)
        problems = host.replay(contents.records)
        if let fault = contents.fault { problems.append("\(fault); the records before it came across") }
        matches = host.book.matches.map { match in
            var match = match
            if !match.ended, match.dueAt == nil, turnSeconds > 0 {
                match.turnSeconds = turnSeconds
                match.dueAt = now + turnSeconds
            }
            return match
        }
        keys = host.keys
    }

    /// Imports the journal at `path` into `store` (one transaction, ids and keys kept).
    /// Returns how many matches came across.
    public static func run(path: String, into store: any StoryStore, turnSeconds: UInt64, now: UInt64,
                           checks: StoryKeyChecks = .live) async throws -> (count: Int, problems: [String]) {
        let read = try StoryJournalImport(path: path, turnSeconds: turnSeconds, now: now, checks: checks)
        let count = try await store.importBook(read.matches, keys: read.keys, source: path)
        return (count, read.problems)
    }

    /// Whether a start should import: the store is empty and has never imported a journal.
    public static func wanted(by store: any StoryStore) async throws -> Bool {
        guard try await store.imported() == nil else { return false }
        return try await store.matchCount() == 0
    }
}
