import Logging
import PostgresNIO
import StoryEngine
import StoryProtocol
import StoryStores
import Synchronization

/// Where a request stands with its connection, for the watchdog that bounds its waits.
final class LeaseWatch: Sendable {
    enum Outcome: Sendable { case waiting, leased(PostgresConnection), finished, waitedTooLong, ranTooLong }
    private let state = Mutex(Outcome.waiting)

    var outcome: Outcome { state.withLock { $0 } }

    /// The request got `connection`; false if it had already given up waiting.
    func leased(_ connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .leased(connection)
            return true
        }
    }

    func done() {
        state.withLock { state in
            if case .leased = state { state = .finished }
        }
    }

    /// True if the request was still waiting for a connection (it gives up now).
    func timeOutWaiting() -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .waitedTooLong
            return true
        }
    }

    /// The connection of a request still running, which gives up now.
    func timeOutRunning() -> PostgresConnection? {
        state.withLock { state in
            guard case .leased(let connection) = state else { return nil }
            state = .ranTooLong
            return connection
        }
    }
}

/// One `apply`'s transaction: the rows the rules read and write.
final class PostgresStoryTransaction: StoryTransaction {
    let connection: PostgresConnection
    let logger: Logger
    /// The matches this transaction inserted or updated, for NOTIFY.
    private(set) var changed: [StoryMatchID] = []

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    func match(forUpdate id: StoryMatchID) async throws -> StoryMatch? {
        let rows = try await connection.query("""
            SELECT body FROM story_matches WHERE id = \(try PostgresStoryStore.column(id)) FOR UPDATE
            """, logger: logger)
        return try await PostgresStoryStore.matches(rows).first
    }

    func oldestOpen(excluding name: String) async throws -> StoryMatch? {
        // SKIP LOCKED: a match another automatch is filling right now is passed over, not waited for.
        let rows = try await connection.query("""
            SELECT m.body FROM story_matches m
            WHERE m.open AND NOT EXISTS (SELECT 1 FROM story_members s WHERE s.match_id = m.id AND s.name = \(name))
            ORDER BY m.id LIMIT 1 FOR UPDATE SKIP LOCKED
            """, logger: logger)
        return try await PostgresStoryStore.matches(rows).first
    }

    func nextID() async throws -> StoryMatchID {
        let rows = try await connection.query("SELECT nextval('story_match_ids')", logger: logger).collect()
        guard let value = try rows.first?.decode(Int64.self) else { throw StoryStoreError.failed("the match id sequence gave nothing") }
        guard let id = UInt32(exactly: value) else { throw StoryStoreError.failed("match id \(value) is out of range") }
        return StoryMatchID(id)
    }

    func insert(_ match: StoryMatch) async throws {
        guard try await insertIfAbsent(match) else {
            throw StoryStoreError.failed("match \(match.id) is already stored")
        }
    }

    /// Inserts `match` and its members unless its id is taken; whether it did.
    func insertIfAbsent(_ match: StoryMatch) async throws -> Bool {
        let id = try PostgresStoryStore.column(match.id)
        let rows = try await connection.query("""
            INSERT INTO story_matches (id, open, due_at, body)
            VALUES (\(id), \(match.isOpen), \(match.dueAt.map { Int64(clamping: $0) }), \(ByteBuffer(bytes: StoryWire.bytes(of: match))))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """, logger: logger).collect()
        guard !rows.isEmpty else { return false }
        try await addMembers(match, id)
        changed.append(match.id)
        return true
    }

    func update(_ match: StoryMatch) async throws {
        let id = try PostgresStoryStore.column(match.id)
        try await connection.query("""
            UPDATE story_matches SET open = \(match.isOpen), due_at = \(match.dueAt.map { Int64(clamping: $0) }),
            body = \(ByteBuffer(bytes: StoryWire.bytes(of: match))) WHERE id = \(id)
            """, logger: logger)
        try await addMembers(match, id)
        if !changed.contains(match.id) { changed.append(match.id) }
    }

    /// A match's participants only ever grow (an automatch newcomer).
    private func addMembers(_ match: StoryMatch, _ id: Int32) async throws {
        let names = match.participants.map(\.name)
        try await connection.query("""
            INSERT INTO story_members (name, match_id) SELECT unnest(\(names)::text[]), \(id)
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }
}
