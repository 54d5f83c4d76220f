import Foundation
import Logging
import NIOCore
import NIOPosix
import SnapTestSupport
import SQLiteNIO
import StoryEngine
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores
@testable import StoryStoresPostgres

/// The stores `StoryStore` has: every one passes `StoryStoreContractTests`.
enum StoreKind: String, CaseIterable, Sendable {
    case sqlite, postgres
}

/// One fresh database of a kind: the store opened on it, opened again, and looked into
/// from outside (as a damaged disk, or a newer snap, would have left it).
struct StoreDatabase: Sendable {
    let kind: StoreKind
    /// The SQLite file, or the PostgreSQL URL.
    let location: String
    let server: PostgresServer?

    static func fresh(_ kind: StoreKind) throws -> StoreDatabase {
        switch kind {
        case .sqlite:
            return StoreDatabase(kind: kind, location: scratchDirectory("sqlite") + "/story.sqlite", server: nil)
        case .postgres:
            let server = try PostgresServer.shared()
            return StoreDatabase(kind: kind, location: server.socketURL(try server.createDatabase()), server: server)
        }
    }

    static let logger: Logger = {
        var logger = Logger(label: "store-contract")
        logger.logLevel = .error
        return logger
    }()

    /// Opens the store, applying `migrations`. PostgreSQL's waits never run out here: in a
    /// full test run other suites' synchronous tests can hold the cooperative pool's two
    /// threads for a minute, and a store's async work, and its clock, wait meanwhile.
    func open(_ migrations: [StoryMigration] = StorySchema.migrations) async throws -> any StoryStore {
        switch kind {
        case .sqlite:
            return try await SQLiteStoryStore.open(path: location, migrations: migrations)
        case .postgres:
            return try await PostgresStoryStore.open(url: PostgresURL(location), password: nil,
                                                     waits: .init(connection: .seconds(300), request: .seconds(600), start: .seconds(300)),
                                                     migrations: migrations, logger: Self.logger)
        }
    }

    /// Where `StoryStoreError.newerSchema` says the database is.
    var place: String {
        switch kind {
        case .sqlite: location
        case .postgres: "postgres \((try? PostgresURL(location)).map { "\($0)" } ?? location)"
        }
    }

    /// The table holding `schema_version`.
    var meta: String { kind == .sqlite ? "meta" : "story_meta" }

    /// The first column of `sql`'s first row, as text (nil: no row), run outside the store.
    @discardableResult
    func value(_ sql: String) async throws -> String? {
        switch kind {
        case .sqlite:
            let connection = try await SQLiteConnection.open(storage: .file(path: location))
            do {
                let rows = try await connection.query(sql)
                try await connection.close()
                return rows.first?.columns.first.map { column in
                    switch column.data {
                    case .integer(let value): String(value)
                    case .text(let text): text
                    default: "\(column.data)"
                    }
                }
            } catch {
                try? await connection.close()
                throw error
            }
        case .postgres:
            let output = try server!.psql(try PostgresURL(location).database, sql)
            return output.isEmpty ? nil : output
        }
    }

    func schemaVersion() async throws -> Int? {
        try await value("SELECT value FROM \(meta) WHERE key = 'schema_version'").flatMap { Int($0) }
    }

    func tableExists(_ name: String) async throws -> Bool {
        let sql = kind == .sqlite ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\(name)'"
            : "SELECT count(*) FROM pg_tables WHERE tablename = '\(name)'"
        return try await value(sql) == "1"
    }
}

/// What every story store must do, run against each (`StoreKind`): SQLite on a real file,
/// PostgreSQL on a real server (SnapTestSupport's `PostgresServer`). What only one store
/// does (SQLite's WAL and file permissions; PostgreSQL's URLs, NOTIFY, locks and reconnects)
/// is tested in that store's own suite.
@Suite("Story store contract", .blocksThreads, .timeLimit(.minutes(10)))
struct StoryStoreContractTests {
    /// The error `body` throws, if any.
    func failure<T>(_ body: () async throws -> T) async -> (any Error)? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test("every command through apply; refusals change nothing; keys; a reopen keeps everything", arguments: StoreKind.allCases)
    func commands(_ kind: StoreKind) async throws {
        let database = try StoreDatabase.fresh(kind)
        let store = try await database.open()
        #expect(try await store.matchCount() == 0)
        let first = try await store.apply(.create(starter: "Ann", others: ["Bob", "Cy"], title: "The dragon", at: 100, turnSeconds: 60))
        #expect(first.id == StoryMatchID(1) && first.dueAt == 160)
        #expect(try await store.match(first.id) == first)
        // Not Bob's turn: refused, and the stored match is as it was.
        #expect(await failure { try await store.apply(.turn(first.id, name: "Bob", text: "Mine", at: 101)) } as? StoryError
                == .notYourTurn(first.id, current: "Ann"))
        #expect(try await store.match(first.id) == first, "a refusal changes nothing")
        let turned = try await store.apply(.turn(first.id, name: "Ann", text: "Once", at: 110))
        #expect(turned.text == "Once" && turned.currentName == "Bob" && turned.dueAt == 170)
        #expect(try await store.match(first.id) == turned)
        let declined = try await store.apply(.decline(first.id, name: "Cy", at: 111))
        #expect(declined.participants[2].declined)

        // Deadlines.
        #expect(try await store.due(at: 169, limit: 10).isEmpty)
        #expect(try await store.due(at: 170, limit: 10) == [first.id])
        let passed = try await store.apply(.timeout(first.id, at: 170))
        #expect(passed.currentName == "Ann" && passed.participants[1].missed == 1 && passed.dueAt == 230)
        #expect(await failure { try await store.apply(.timeout(first.id, at: 171)) } as? StoryError == .notDue(first.id))

        // Automatch: Dan opens a match, Eve joins it, Dan again opens another (never into his own).
        let opened = try await store.apply(.automatch(name: "Dan", at: 200, turnSeconds: 0))
        let joined = try await store.apply(.automatch(name: "Eve", at: 201, turnSeconds: 0))
        let another = try await store.apply(.automatch(name: "Dan", at: 202, turnSeconds: 0))
        #expect(opened.id == StoryMatchID(2) && joined.id == opened.id && joined.participants.map(\.name) == ["Dan", "Eve"])
        #expect(another.id == StoryMatchID(3))
        #expect(try await store.matches(of: "Dan").map(\.id) == [StoryMatchID(2), StoryMatchID(3)])
        #expect(try await store.matches(of: "Eve").map(\.id) == [StoryMatchID(2)])

        // Ann quits: with Cy declined only Bob is left, so it ends; a rematch without Cy.
        let over = try await store.apply(.quit(first.id, name: "Ann", at: 300))
        #expect(over.ended)
        let rematch = try await store.apply(.rematch(first.id, name: "Bob", at: 301))
        #expect(rematch.id == StoryMatchID(4) && rematch.participants.map(\.name) == ["Bob", "Ann"] && rematch.turnSeconds == 60)
        #expect(try await store.match(first.id)?.rematch == rematch.id)
        #expect(try await store.apply(.rematch(first.id, name: "Ann", at: 302)) == rematch, "asked again, the same one, not a fifth")
        #expect(await failure { try await store.apply(.turn(StoryMatchID(9), name: "Ann", text: "x", at: 1)) } as? StoryError
                == .unknownMatch(StoryMatchID(9)))
        #expect(try await store.match(StoryMatchID(9)) == nil)
        #expect(try await store.matchCount() == 4)
        #expect(try await store.matches(of: "Bob").map(\.id) == [first.id, rematch.id])
        #expect(try await store.matches(of: "Zed").isEmpty)

        // Keys: registered, replaced, unknown.
        #expect(try await store.registeredKey(of: "Ann") == nil)
        try await store.register(.publicKey(Array(repeating: 7, count: 32)), for: "Ann")
        try await store.register(.oldKeyDigest(Array(repeating: 9, count: 32)), for: "Bob")
        #expect(try await store.registeredKey(of: "Bob") == .oldKeyDigest(Array(repeating: 9, count: 32)))
        try await store.register(.publicKey(Array(repeating: 8, count: 32)), for: "Bob")
        var all: [StoryMatch] = []
        for id in 1...4 { all.append(try #require(try await store.match(StoryMatchID(UInt32(id))))) }
        await store.close()

        let again = try await database.open()
        for match in all { #expect(try await again.match(match.id) == match) }
        #expect(try await again.matchCount() == 4)
        #expect(try await again.matches(of: "Ann").map(\.id) == [StoryMatchID(1), StoryMatchID(4)])
        #expect(try await again.registeredKey(of: "Ann") == .publicKey(Array(repeating: 7, count: 32)))
        #expect(try await again.registeredKey(of: "Bob") == .publicKey(Array(repeating: 8, count: 32)))
        #expect(try await again.registeredKey(of: "Cy") == nil)
        #expect(try await again.apply(.create(starter: "Cy", others: ["Dan"], title: "", at: 400)).id == StoryMatchID(5))
        await again.close()
    }

    @Test("the service's calls through perform are answered on the service's loop, as the awaited calls answer; a refusal is the same error",
          arguments: StoreKind.allCases)
    func performOnLoop(_ kind: StoreKind) async throws {
        let database = try StoreDatabase.fresh(kind)
        let store = try await database.open()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        /// The answer, and whether it was delivered on `loop`.
        func perform(_ call: StoryConnection.StoreCall) async -> (Result<StoryConnection.StoreAnswer, any Error>, onLoop: Bool) {
            let delivered = loop.makePromise(of: (Result<StoryConnection.StoreAnswer, any Error>, Bool).self)
            store.perform(call, answeringOn: loop).whenComplete { delivered.succeed(($0, loop.inEventLoop)) }
            return try! await delivered.futureResult.get()
        }
        let (created, createdOnLoop) = await perform(.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 100, turnSeconds: 60)))
        guard case .success(.applied(let match)) = created else { Issue.record("\(created)"); return }
        #expect(createdOnLoop && match.id == StoryMatchID(1))
        #expect(try await store.match(match.id) == match, "committed: the awaited read sees it")
        let (refused, refusedOnLoop) = await perform(.apply(.turn(match.id, name: "Bob", text: "Mine", at: 101)))
        guard case .failure(let error) = refused else { Issue.record("\(refused)"); return }
        #expect(refusedOnLoop && error as? StoryError == .notYourTurn(match.id, current: "Ann"))
        let (registered, _) = await perform(.register(.publicKey(Array(repeating: 7, count: 32)), for: "Ann"))
        guard case .success(.registered) = registered else { Issue.record("\(registered)"); return }
        let (key, _) = await perform(.registeredKey(of: "Ann"))
        guard case .success(.registeredKey(let found)) = key else { Issue.record("\(key)"); return }
        #expect(found == .publicKey(Array(repeating: 7, count: 32)))
        let (matches, matchesOnLoop) = await perform(.matches(of: "Bob"))
        guard case .success(.matches(let list)) = matches else { Issue.record("\(matches)"); return }
        #expect(matchesOnLoop && list == [match])
        let (one, _) = await perform(.match(StoryMatchID(9)))
        guard case .success(.match(nil)) = one else { Issue.record("\(one)"); return }
        await store.close()
        try await group.shutdownGracefully()
    }

    @Test("importBook keeps ids and keys in one transaction, records its source, and new matches number on", arguments: StoreKind.allCases)
    func importBook(_ kind: StoreKind) async throws {
        var book = StoryBook()
        for index in 0..<1200 { try book.apply(.create(starter: "Ann", others: ["Bob"], title: "\(index)", at: 1)) }
        try book.apply(.turn(StoryMatchID(700), name: "Ann", text: "Hello", at: 2))
        let database = try StoreDatabase.fresh(kind)
        let store = try await database.open()
        #expect(try await store.imported() == nil)
        #expect(try await StoryJournalImport.wanted(by: store))
        #expect(try await store.importBook(book.matches, keys: ["Ann": .publicKey(Array(repeating: 1, count: 32))],
                                           source: "/old/story.journal") == 1200)
        #expect(try await store.match(StoryMatchID(700))?.text == "Hello")
        #expect(try await store.matches(of: "Bob").count == 1200)
        #expect(try await store.registeredKey(of: "Ann") == .publicKey(Array(repeating: 1, count: 32)))
        #expect(try await store.imported() == "/old/story.journal")
        #expect(try await !StoryJournalImport.wanted(by: store))
        #expect(try await store.apply(.create(starter: "Cy", others: ["Dan"], title: "", at: 3)).id == StoryMatchID(1201))
        await store.close()
        // Reopened, the store still says it imported: a journal is never imported twice.
        let again = try await database.open()
        #expect(try await again.imported() == "/old/story.journal")
        #expect(try await !StoryJournalImport.wanted(by: again))
        await again.close()
    }

    @Test("an empty store that never imported wants a journal; one holding matches does not", arguments: StoreKind.allCases)
    func wanted(_ kind: StoreKind) async throws {
        let store = try await StoreDatabase.fresh(kind).open()
        #expect(try await StoryJournalImport.wanted(by: store))
        _ = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        #expect(try await !StoryJournalImport.wanted(by: store))
        #expect(try await store.imported() == nil)
        await store.close()
    }

    @Test("a row that does not read back is damaged; the others still read; a turn on it changes nothing", arguments: StoreKind.allCases)
    func damagedRow(_ kind: StoreKind) async throws {
        let database = try StoreDatabase.fresh(kind)
        let store = try await database.open()
        let good = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        _ = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        try await database.value(kind == .sqlite ? "UPDATE matches SET body = x'010203' WHERE id = 2"
                                 : "UPDATE story_matches SET body = '\\x010203'::bytea WHERE id = 2")
        let error = await failure { try await store.match(StoryMatchID(2)) }
        guard case .damaged? = error as? StoryStoreError else {
            Issue.record("a damaged row: \(String(describing: error))")
            return
        }
        #expect(try await store.match(good.id) == good)
        #expect(await failure { try await store.apply(.turn(StoryMatchID(2), name: "Ann", text: "x", at: 2)) } is StoryStoreError)
        #expect(try await store.match(good.id) == good)
        await store.close()
    }

    @Test("a schema from a newer snap is refused, naming the database and both versions", arguments: StoreKind.allCases)
    func newerSchema(_ kind: StoreKind) async throws {
        let database = try StoreDatabase.fresh(kind)
        await (try await database.open()).close()
        try await database.value("UPDATE \(database.meta) SET value = '99' WHERE key = 'schema_version'")
        let error = await failure { try await database.open() }
        #expect(error as? StoryStoreError == .newerSchema(found: 99, supported: StorySchema.version, where: database.place),
                "\(String(describing: error))")
        let words = "\(error.map { "\($0)" } ?? "")"
        #expect(words.contains(database.place) && words.contains("99") && words.contains("upgrade snap"), "\(words)")
    }

    /// The step after this snap's last, as a later snap would add one (tests only).
    static func nextStep(_ sqlite: [String], _ postgres: [String]) -> [StoryMigration] {
        StorySchema.migrations + [StoryMigration(version: StorySchema.version + 1, summary: "a test's step", sqlite: sqlite, postgres: postgres)]
    }

    static let working = nextStep(["CREATE TABLE test_step(note TEXT NOT NULL)", "INSERT INTO test_step(note) VALUES('made by the step')"],
                                  ["CREATE TABLE test_step (note text NOT NULL)", "INSERT INTO test_step (note) VALUES ('made by the step')"])

    @Test("a database at an earlier version gets the later steps in order, keeping its matches; then this snap refuses it by name",
          arguments: StoreKind.allCases)
    func migration(_ kind: StoreKind) async throws {
        let current = StorySchema.version, next = current + 1
        // Every earlier version of the real list, upgraded to this snap's.
        for earlier in 1..<current {
            let database = try StoreDatabase.fresh(kind)
            let old = try await database.open(Array(StorySchema.migrations.prefix(earlier)))
            let match = try await old.apply(.create(starter: "Ann", others: ["Bob"], title: "From \(earlier)", at: 1))
            await old.close()
            #expect(try await database.schemaVersion() == earlier)
            let store = try await database.open()
            #expect(try await store.match(match.id) == match)
            await store.close()
            #expect(try await database.schemaVersion() == current)
        }

        // This snap's version, and a step after it.
        let database = try StoreDatabase.fresh(kind)
        let store = try await database.open()
        let match = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "Kept", at: 1))
        await store.close()
        #expect(try await database.schemaVersion() == current)
        #expect(try await !database.tableExists("test_step"))

        let upgraded = try await database.open(Self.working)
        #expect(try await upgraded.match(match.id) == match)
        _ = try await upgraded.apply(.turn(match.id, name: "Ann", text: "After the step", at: 2))
        await upgraded.close()
        #expect(try await database.schemaVersion() == next)
        #expect(try await database.value("SELECT note FROM test_step") == "made by the step")
        // Opened again with the same list, nothing runs twice (the step's insert would repeat).
        await (try await database.open(Self.working)).close()
        #expect(try await database.value("SELECT count(*) FROM test_step") == "1")

        // This snap's list stops before that step: the database is refused, by name, as a newer one.
        let error = await failure { try await database.open() }
        #expect(error as? StoryStoreError == .newerSchema(found: next, supported: current, where: database.place),
                "\(String(describing: error))")
        // And one claiming 99 is refused by the longer list too.
        try await database.value("UPDATE \(database.meta) SET value = '99' WHERE key = 'schema_version'")
        #expect(await failure { try await database.open(Self.working) } as? StoryStoreError
                == .newerSchema(found: 99, supported: next, where: database.place))
    }

    @Test("a new database runs every step in one go; a step that fails leaves the database as it was", arguments: StoreKind.allCases)
    func failedStep(_ kind: StoreKind) async throws {
        let fresh = try StoreDatabase.fresh(kind)
        await (try await fresh.open(Self.working)).close()
        #expect(try await fresh.schemaVersion() == StorySchema.version + 1)
        #expect(try await fresh.tableExists("test_step"))
        #expect(try await fresh.tableExists(kind == .sqlite ? "matches" : "story_matches"))

        let database = try StoreDatabase.fresh(kind)
        let store = try await database.open()
        _ = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        await store.close()
        let broken = Self.nextStep(["CREATE TABLE test_step(note TEXT NOT NULL)", "INSERT INTO no_such_table VALUES(1)"],
                                   ["CREATE TABLE test_step (note text NOT NULL)", "INSERT INTO no_such_table VALUES (1)"])
        let error = await failure { try await database.open(broken) }
        #expect(error is StoryStoreError, "\(String(describing: error))")
        // Rolled back whole: no half-made table, the version as it was, the matches served.
        #expect(try await !database.tableExists("test_step"))
        #expect(try await database.schemaVersion() == StorySchema.version)
        let again = try await database.open()
        #expect(try await again.matchCount() == 1)
        await again.close()
    }

    @Test("the steps are numbered 1, 2, 3… and a database needs the ones after its version")
    func steps() throws {
        let current = StorySchema.version, next = current + 1
        #expect(StorySchema.migrations.map(\.version) == Array(1...StorySchema.migrations.count))
        #expect(current == StorySchema.migrations.count)
        #expect(try StorySchema.steps(from: nil, of: Self.working, place: "P").map(\.version) == Array(1...next))
        #expect(try StorySchema.steps(from: current, of: Self.working, place: "P").map(\.version) == [next])
        #expect(try StorySchema.steps(from: next, of: Self.working, place: "P").isEmpty)
        #expect(throws: StoryStoreError.newerSchema(found: next + 1, supported: next, where: "P")) {
            try StorySchema.steps(from: next + 1, of: Self.working, place: "P")
        }
    }
}
