import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import StoryEngine
import StoryProtocol
import StoryStores
import Synchronization

/// The story store in PostgreSQL, for a service of several `snapcards story serve` processes
/// sharing one database (docs/STORY.md, "PostgreSQL").
///
/// - Every `apply` is one transaction: the match it changes is read `FOR UPDATE` (an open
///   automatch `FOR UPDATE SKIP LOCKED`), so two turns on one match arriving at two
///   processes at once are taken one after the other, the second one refused as the rules
///   refuse it ("not your turn"); a turn is answered only after COMMIT returned.
/// - A transaction that changed a match sends `NOTIFY story_changes, 'INSTANCE:ID'`,
///   delivered when it commits; each store LISTENs on a connection of its own and yields
///   the ids other instances changed from `changes()`.
/// - The connections are postgres-nio's `PostgresClient` pool, whose `run()` task this
///   store owns (ended by `close()`). The pool reconnects with backoff when the database
///   comes back; meanwhile every operation fails within `Waits.connection` with
///   `StoryStoreError.unreachable`, and none waits longer than `Waits.request`.
public final class PostgresStoryStore: StoryStore {
    /// How long an operation waits, so that none hangs while the database is away.
    public struct Waits: Sendable {
        /// For a connection from the pool (the database down: refused after this).
        public var connection: Duration
        /// For a whole request once it has its connection; past it the connection is
        /// closed, so the transaction can no longer commit, and the request is refused.
        public var request: Duration
        /// For the first connection, at start.
        public var start: Duration

        public init(connection: Duration = .seconds(3), request: Duration = .seconds(10), start: Duration = .seconds(5)) {
            self.connection = connection
            self.request = request
            self.start = start
        }
    }

    /// The channel of NOTIFY and LISTEN.
    public static let channel = "story_changes"

    public let description: String
    public let url: PostgresURL
    /// This store's name in the NOTIFY payloads, so that it skips its own.
    public let instanceID: String
    let client: PostgresClient
    let logger: Logger
    let waits: Waits
    private let runTask: Task<Void, Never>
    private let state = Mutex(State())

    private struct State: Sendable {
        var subscribers: [Int: AsyncStream<StoryMatchID>.Continuation] = [:]
        var nextSubscriber = 0
        var listenTask: Task<Void, Never>?
        var closed = false
    }

    /// Opens the database `url` names (`postgres://…`), creating the schema if it is not
    /// there yet; the password, if the server wants one, comes from `PGPASSWORD`.
    /// Throws `PostgresURL.Invalid` for a malformed URL, `StoryStoreError.unreachable` if
    /// the database cannot be reached, `.newerSchema` if it holds a newer snap's schema.
    public static func open(url: String, logger: Logger) async throws -> PostgresStoryStore {
        try await open(url: PostgresURL(url), logger: logger)
    }

    public static func open(url: PostgresURL, password: String? = ProcessInfo.processInfo.environment["PGPASSWORD"],
                            waits: Waits = Waits(), logger: Logger) async throws -> PostgresStoryStore {
        try await open(url: url, password: password, waits: waits, migrations: StorySchema.migrations, logger: logger)
    }

    /// `open` as `openStoryStore` (StoryService) takes it: snapcards-story-postgres hands it
    /// over; snapcards, which links no PostgreSQL driver, has none to hand.
    public static let opener: PostgresStoreOpener = { url, password in
        try await open(url: url, password: password, logger: Logger(label: "snap.story.postgres"))
    }

    /// `open`, with the schema's steps given (a test's list, to try the mechanism).
    static func open(url: PostgresURL, password: String?, waits: Waits, migrations: [StoryMigration],
                     logger: Logger) async throws -> PostgresStoryStore {
        let where_ = "postgres \(url)"
        // The schema through one connection of its own: its failure says exactly why (refused,
        // no such socket, no such database, authentication) in a way the pool's waiting does not.
        let connection: PostgresConnection
        do {
            connection = try await withDeadline(waits.start, what: "connecting to \(where_)") {
                try await PostgresConnection.connect(configuration: try connectionConfiguration(url, password: password, waits: waits),
                                                     id: 0, logger: logger)
            }
        } catch {
            throw unreachableAtStart(error, where_)
        }
        do {
            try await prepareSchema(on: connection, migrations: migrations, where: where_, logger: logger)
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw mapped(error, where_)
        }
        let store = PostgresStoryStore(url: url, password: password, waits: waits, logger: logger)
        do {
            try await store.startListening()
        } catch {
            await store.close()
            throw mapped(error, where_)
        }
        return store
    }

    private init(url: PostgresURL, password: String?, waits: Waits, logger: Logger) {
        self.url = url
        self.description = "postgres \(url)"
        self.instanceID = UUID().uuidString
        self.logger = logger
        self.waits = waits
        var configuration: PostgresClient.Configuration
        switch url.endpoint {
        case .tcp(let host, let port):
            configuration = .init(host: host, port: port, username: url.user, password: password, database: url.database,
                                  tls: Self.clientTLS(url.tls))
        case .socket:
            configuration = .init(unixSocketPath: url.socketPath!, username: url.user, password: password, database: url.database)
        }
        configuration.options.connectTimeout = waits.connection
        configuration.options.maximumConnections = 20
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        // The client works only while its run() does: this task is the store's, ended by close().
        runTask = Task { await client.run() }
    }

    // MARK: StoryStore

    public func registeredKey(of name: String) async throws -> StoryRegisteredKey? {
        try await withConnection { connection, logger in
            let rows = try await connection.query("SELECT kind, bytes FROM story_keys WHERE name = \(name)", logger: logger).collect()
            guard let (kind, bytes) = try rows.first?.decode((Int16, ByteBuffer).self) else { return nil }
            return try Self.key(kind: kind, bytes: Array(bytes.readableBytesView), name: name)
        }
    }

    public func register(_ key: StoryRegisteredKey, for name: String) async throws {
        try await withConnection { connection, logger in
            let (kind, bytes) = Self.row(of: key)
            try await connection.query("""
                INSERT INTO story_keys (name, kind, bytes) VALUES (\(name), \(kind), \(ByteBuffer(bytes: bytes)))
                ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, bytes = excluded.bytes
                """, logger: logger)
        }
    }

    public func match(_ id: StoryMatchID) async throws -> StoryMatch? {
        try await withConnection { connection, logger in
            let rows = try await connection.query("SELECT body FROM story_matches WHERE id = \(try Self.column(id))", logger: logger)
            return try await Self.matches(rows).first
        }
    }

    public func matches(of name: String) async throws -> [StoryMatch] {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT m.body FROM story_members s JOIN story_matches m ON m.id = s.match_id
                WHERE s.name = \(name) ORDER BY m.id
                """, logger: logger)
            return try await Self.matches(rows)
        }
    }

    public func apply(_ command: StoryCommand) async throws -> StoryMatch {
        let instanceID = self.instanceID
        return try await withTransaction { connection, logger in
            let transaction = PostgresStoryTransaction(connection: connection, logger: logger)
            let match = try await StoryStoreRules.apply(command, in: transaction)
            // Delivered to the listeners when (and only if) this transaction commits.
            for id in transaction.changed {
                let payload = "\(instanceID):\(id)"
                try await connection.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger)
            }
            return match
        }
    }

    public func due(at now: UInt64, limit: Int) async throws -> [StoryMatchID] {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT id FROM story_matches WHERE due_at IS NOT NULL AND due_at <= \(Int64(clamping: now))
                ORDER BY due_at, id LIMIT \(Int64(max(0, limit)))
                """, logger: logger).collect()
            return try rows.map { StoryMatchID(UInt32(bitPattern: try $0.decode(Int32.self))) }
        }
    }

    public func matchCount() async throws -> Int {
        try await withConnection { connection, logger in
            let rows = try await connection.query("SELECT count(*) FROM story_matches", logger: logger).collect()
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        }
    }

    public func imported() async throws -> String? {
        try await withConnection { connection, logger in
            let rows = try await connection.query("SELECT value FROM story_meta WHERE key = 'imported'", logger: logger).collect()
            return try rows.first?.decode(String.self)
        }
    }

    public func changes() -> AsyncStream<StoryMatchID> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoryMatchID.self, bufferingPolicy: .bufferingNewest(4096))
        let id: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            defer { state.nextSubscriber += 1 }
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    public func importBook(_ matches: [StoryMatch], keys: [String: StoryRegisteredKey], source: String) async throws -> Int {
        try await withTransaction(request: .seconds(600)) { connection, logger in
            let transaction = PostgresStoryTransaction(connection: connection, logger: logger)
            var added = 0
            for match in matches {
                if try await transaction.insertIfAbsent(match) { added += 1 }
            }
            for (name, key) in keys {
                let (kind, bytes) = Self.row(of: key)
                try await connection.query("""
                    INSERT INTO story_keys (name, kind, bytes) VALUES (\(name), \(kind), \(ByteBuffer(bytes: bytes)))
                    ON CONFLICT (name) DO NOTHING
                    """, logger: logger)
            }
            // New matches are numbered after the imported ones.
            try await connection.query("""
                SELECT setval('story_match_ids', (SELECT COALESCE(MAX(id), 0) + 1 FROM story_matches), false)
                """, logger: logger)
            try await connection.query("""
                INSERT INTO story_meta (key, value) VALUES ('imported', \(source))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, logger: logger)
            return added
        }
    }

    public func close() async {
        let (listenTask, subscribers): (Task<Void, Never>?, [AsyncStream<StoryMatchID>.Continuation]) = state.withLock { state in
            state.closed = true
            defer { state.subscribers = [:]; state.listenTask = nil }
            return (state.listenTask, Array(state.subscribers.values))
        }
        for subscriber in subscribers { subscriber.finish() }
        listenTask?.cancel()
        await listenTask?.value
        runTask.cancel()
        await runTask.value
    }

    // MARK: Connections, bounded

    /// `body` on a connection from the pool, within `waits`; every failure mapped to a
    /// `StoryStoreError` (or the `StoryError` the rules threw).
    func withConnection<Result: Sendable>(request: Duration? = nil,
                                          _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Result) async throws -> Result {
        let client = self.client
        let logger = self.logger
        let lease = LeaseWatch()
        let work = Task {
            try await client.withConnection { connection in
                guard lease.leased(connection) else { throw CancellationError() }
                defer { lease.done() }
                return try await body(connection, logger)
            }
        }
        let waits = self.waits
        let watchdog = Task {
            do { try await Task.sleep(for: waits.connection) } catch { return }
            if lease.timeOutWaiting() {
                work.cancel()
                return
            }
            do { try await Task.sleep(for: (request ?? waits.request) - waits.connection) } catch { return }
            // A request that hangs on a connection (a database gone without a word): closing the
            // connection fails it, so it can never commit after we have said it did not.
            if let connection = lease.timeOutRunning() { _ = connection.close() as EventLoopFuture<Void> }
        }
        defer { watchdog.cancel() }
        do {
            return try await withTaskCancellationHandler { try await work.value } onCancel: { work.cancel() }
        } catch {
            switch lease.outcome {
            case .waitedTooLong:
                throw StoryStoreError.unreachable("no connection to \(description) within \(Self.words(waits.connection))")
            case .ranTooLong:
                throw StoryStoreError.unreachable("\(description) did not answer within \(Self.words(request ?? waits.request))")
            default:
                throw Self.mapped(error, description)
            }
        }
    }

    /// `body` inside BEGIN … COMMIT on one connection: committed when this returns; rolled
    /// back if it throws.
    func withTransaction<Result: Sendable>(request: Duration? = nil,
                                           _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Result) async throws -> Result {
        try await withConnection(request: request) { connection, logger in
            try await connection.query("BEGIN", logger: logger)
            let result: Result
            do {
                result = try await body(connection, logger)
            } catch {
                do {
                    try await connection.query("ROLLBACK", logger: logger)
                } catch {
                    // The connection is not fit to return to the pool in a transaction.
                    _ = connection.close() as EventLoopFuture<Void>
                }
                throw error
            }
            try await connection.query("COMMIT", logger: logger)
            return result
        }
    }

    // MARK: LISTEN

    /// Listens on a connection of its own for as long as the store is open, reconnecting
    /// with backoff; returns once the first LISTEN is in place.
    private func startListening() async throws {
        let ready = AsyncStream.makeStream(of: Result<Void, any Error>.self)
        let client = self.client
        let logger = self.logger
        let instanceID = self.instanceID
        let prefix = instanceID + ":"
        let task = Task { [weak self] in
            var backoff = Duration.milliseconds(100)
            var first = true
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.channel) { notifications in
                            backoff = .milliseconds(100)
                            if first { first = false; ready.continuation.yield(.success(())) }
                            for try await notification in notifications {
                                let payload = notification.payload
                                guard !payload.hasPrefix(prefix), let colon = payload.lastIndex(of: ":"),
                                      let id = UInt32(payload[payload.index(after: colon)...]) else { continue }
                                self?.deliver(StoryMatchID(id))
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    if first {
                        first = false
                        ready.continuation.yield(.failure(error))
                        return
                    }
                    logger.warning("story changes: lost the LISTEN connection (\(error)); trying again")
                }
                do { try await Task.sleep(for: backoff) } catch { break }
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        state.withLock { $0.listenTask = task }
        let outcome = try await Self.withDeadline(waits.start, what: "listening on \(description)") {
            for await outcome in ready.stream { return outcome }
            return .failure(CancellationError())
        }
        try outcome.get()
    }

    private func deliver(_ id: StoryMatchID) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(id) }
    }

    // MARK: Schema

    /// Applies the schema's steps the database lacks (`StorySchema`), in one transaction.
    static func prepareSchema(on connection: PostgresConnection, migrations: [StoryMigration], where place: String,
                              logger: Logger) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            // Several processes may start at once on a new database: one creates, the others wait.
            try await connection.query("SELECT pg_advisory_xact_lock(7310034851226464372)", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: StorySchema.postgresMeta), logger: logger)
            let found = try await schemaVersion(on: connection, logger: logger)
            for step in try StorySchema.steps(from: found, of: migrations, place: place) {
                for statement in step.postgres {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO story_meta (key, value) VALUES ('schema_version', \(String(step.version)))
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """, logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// The schema version the database holds (nil: none yet).
    static func schemaVersion(on connection: PostgresConnection, logger: Logger) async throws -> Int? {
        let exists = try await connection.query("SELECT to_regclass('story_meta') IS NOT NULL", logger: logger).collect()
        guard try exists.first?.decode(Bool.self) == true else { return nil }
        let rows = try await connection.query("SELECT value FROM story_meta WHERE key = 'schema_version'", logger: logger).collect()
        guard let value = try rows.first?.decode(String.self) else { return nil }
        guard let version = Int(value) else { throw StoryStoreError.damaged("schema_version is \"\(value)\"") }
        return version
    }

    // MARK: Rows

    static func matches(_ rows: PostgresRowSequence) async throws -> [StoryMatch] {
        try await rows.collect().map { try match(try $0.decode(ByteBuffer.self)) }
    }

    static func match(_ body: ByteBuffer) throws -> StoryMatch {
        do {
            return try StoryWire.match(from: Array(body.readableBytesView))
        } catch {
            throw StoryStoreError.damaged("a match row's body does not read back (\(error))")
        }
    }

    static func column(_ id: StoryMatchID) throws -> Int32 {
        guard let value = Int32(exactly: id.value) else { throw StoryStoreError.failed("match id \(id) is past PostgreSQL's integer") }
        return value
    }

    static func row(of key: StoryRegisteredKey) -> (Int16, [UInt8]) {
        switch key {
        case .oldKeyDigest(let digest): (1, digest)
        case .publicKey(let bytes): (2, bytes)
        }
    }

    static func key(kind: Int16, bytes: [UInt8], name: String) throws -> StoryRegisteredKey {
        switch kind {
        case 1: .oldKeyDigest(bytes)
        case 2: .publicKey(bytes)
        default: throw StoryStoreError.damaged("\(name)'s key is of kind \(kind)")
        }
    }

    // MARK: Errors and waits

    /// A database error as a `StoryStoreError`; the rules' `StoryError` as it is.
    static func mapped(_ error: any Error, _ place: String) -> any Error {
        switch error {
        case is StoryError, is StoryStoreError, is PostgresURL.Invalid:
            return error
        case let error as PSQLError:
            if error.code == .server, let info = error.serverInfo {
                let state = info[.sqlState] ?? ""
                let message = info[.message] ?? "an error"
                // 08: connection exceptions; 57P0x: the server shutting down or starting.
                if state.hasPrefix("08") || state.hasPrefix("57P") {
                    return StoryStoreError.unreachable("\(place): \(message)")
                }
                if state == "53100" { return StoryStoreError.failed("\(place): the database's disk is full (\(message))") }
                if state == "25006" { return StoryStoreError.failed("\(place): the database is read-only (\(message))") }
                return StoryStoreError.failed("\(place): \(message) (SQLSTATE \(state))")
            }
            return StoryStoreError.unreachable("\(place): \(words(error))")
        case is PostgresDecodingError:
            return StoryStoreError.damaged("\(place): a row of an unexpected type")
        default:
            return StoryStoreError.unreachable("\(place): \(words(error))")
        }
    }

    /// An error at start, in words an operator acts on (the CLI exits 3).
    static func unreachableAtStart(_ error: any Error, _ place: String) -> any Error {
        if let error = error as? PSQLError, error.code == .server, let info = error.serverInfo {
            // No such database, no such role, a wrong password: all mean "cannot use it".
            let message = info[.message] ?? "refused"
            return StoryStoreError.unreachable("\(place): \(message)")
        }
        if error is StoryStoreError || error is PostgresURL.Invalid { return error }
        return StoryStoreError.unreachable("\(place): \(words(error))")
    }

    /// A connection-level error in plain words (postgres-nio's own description hides them).
    static func words(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let underlying = error.underlying { return words(underlying) }
            switch error.code {
            case .serverClosedConnection, .uncleanShutdown: return "the server closed the connection"
            case .clientClosedConnection, .poolClosed: return "the connection was closed"
            case .authMechanismRequiresPassword: return "the server wants a password: set PGPASSWORD"
            case .sslUnsupported: return "the server does not offer TLS (sslmode=require)"
            default: return "the connection failed (\(error.code))"
            }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused (is PostgreSQL running there?)"
            case ENOENT: return "no server socket there (is PostgreSQL running, with that socket directory and port?)"
            case EACCES: return "permission denied on the server's socket"
            default: return String(cString: strerror(error.errnoCode))
            }
        }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return words(first.error) }
            if let resolution = error.dnsAAAAError ?? error.dnsAError { return "the host's name does not resolve (\(resolution))" }
            return "cannot connect to \(error.host):\(error.port)"
        }
        if error is CancellationError { return "the request was cancelled" }
        if let error = error as? DeadlineError { return error.description }
        if let error = error as? ChannelError, case .connectTimeout = error { return "the connection timed out" }
        return "\(error)"
    }

    static func words(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    struct DeadlineError: Error, CustomStringConvertible {
        let description: String
    }

    /// `body`'s result, or `DeadlineError` after `limit` (`body` is cancelled then).
    static func withDeadline<Result: Sendable>(_ limit: Duration, what: String,
                                               _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let work = Task { try await body() }
        let timer = Task {
            do { try await Task.sleep(for: limit) } catch { return false }
            work.cancel()
            return true
        }
        do {
            let value = try await work.value
            timer.cancel()
            return value
        } catch {
            timer.cancel()
            if await timer.value { throw DeadlineError(description: "\(what) took longer than \(words(limit))") }
            throw error
        }
    }

    static func connectionConfiguration(_ url: PostgresURL, password: String?, waits: Waits) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        switch url.endpoint {
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS = switch url.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: unverified()))
            case .require: .require(try NIOSSLContext(configuration: unverified()))
            case .verifyFull: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            configuration = .init(host: host, port: port, username: url.user, password: password, database: url.database, tls: tls)
        case .socket:
            configuration = .init(unixSocketPath: url.socketPath!, username: url.user, password: password, database: url.database)
        }
        configuration.options.connectTimeout = .nanoseconds(Int64(waits.start.components.seconds) * 1_000_000_000
            + waits.start.components.attoseconds / 1_000_000_000)
        return configuration
    }

    static func clientTLS(_ mode: PostgresURL.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(unverified())
        case .require: .require(unverified())
        case .verifyFull: .require(.makeClientConfiguration())
        }
    }

    /// libpq's `prefer` and `require`: encrypted, the certificate not checked.
    static func unverified() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }
}
