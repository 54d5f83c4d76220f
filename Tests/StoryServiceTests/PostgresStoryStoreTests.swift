import Foundation
import Logging
import SnapTestSupport
import StoryEngine
import Synchronization
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores

/// `PostgresURL`: the forms `snapcards story serve --database` takes, and plain refusals.
@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test func tcpForms() throws {
        let plain = try PostgresURL("postgres://snap@db.example/story")
        #expect(plain.endpoint == .tcp(host: "db.example", port: 5432))
        #expect(plain.user == "snap" && plain.database == "story" && plain.tls == .prefer)
        #expect(plain.description == "db.example/story")
        let port = try PostgresURL("postgresql://snap@127.0.0.1:6543/story?sslmode=disable")
        #expect(port.endpoint == .tcp(host: "127.0.0.1", port: 6543) && port.tls == .disable)
        #expect(port.description == "127.0.0.1:6543/story")
        let v6 = try PostgresURL("postgres://snap@[::1]:5433/story")
        #expect(v6.endpoint == .tcp(host: "::1", port: 5433))
        #expect(v6.description == "[::1]:5433/story")
        #expect(try PostgresURL("postgres://us%40er@h/d%20b").user == "us@er")
        #expect(try PostgresURL("postgres://us%40er@h/d%20b").database == "d b")
    }

    @Test func socketForms() throws {
        let socket = try PostgresURL("postgres://snap@/story?host=/run/postgresql")
        #expect(socket.endpoint == .socket(directory: "/run/postgresql", port: 5432))
        #expect(socket.socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(socket.tls == .disable)
        #expect(socket.description == "/run/postgresql/story")
        let port = try PostgresURL("postgresql://snap@/story?host=/tmp/pg/&port=6000")
        #expect(port.socketPath == "/tmp/pg/.s.PGSQL.6000")
        #expect(port.description == "/tmp/pg:6000/story")
    }

    @Test func refusals() {
        func why(_ text: String) -> String {
            do {
                _ = try PostgresURL(text)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(why("mysql://a@b/c").contains("postgres://"))
        #expect(why("postgres://a@b").contains("no database"))
        #expect(why("postgres://b/c").contains("no user"))
        #expect(why("postgres://a@/c").contains("no host"))
        #expect(why("postgres://a@b/c/d").contains("one name"))
        #expect(why("postgres://a@b:0/c").contains("port"))
        #expect(why("postgres://a@b:x/c").contains("port"))
        #expect(why("postgres://a@/c?host=relative").contains("absolute"))
        #expect(why("postgres://a@b/c?host=/run").contains("both"))
        #expect(why("postgres://a@b/c?sslmode=maybe").contains("sslmode"))
        #expect(why("postgres://a@b/c?colour=blue").contains("colour"))
        // A password is refused, and never repeated.
        let secret = "hunter2-secret"
        for text in ["postgres://a:\(secret)@b/c", "postgres://a@b/c?password=\(secret)"] {
            let words = why(text)
            #expect(words.contains("PGPASSWORD"))
            #expect(!words.contains(secret))
        }
    }
}

/// `PostgresStoryStore` against a real PostgreSQL server (Tests/SnapTestSupport/PostgresServer).
/// Counts what a listening task heard.
final class Heard: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

@Suite("PostgreSQL story store", .timeLimit(.minutes(10)))
struct PostgresStoryStoreTests {
    static let logger: Logger = {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .error
        return logger
    }()

    func freshDatabase(_ server: PostgresServer? = nil) throws -> (PostgresServer, String) {
        let server = try server ?? PostgresServer.shared()
        return (server, server.socketURL(try server.createDatabase()))
    }

    /// Waits that never run out but where a test measures them: in a full test run the
    /// synchronous tests of other suites can hold both of the cooperative pool's threads (two
    /// cores) for a minute, and a store's async work, and its clock, wait for one meanwhile.
    func open(_ url: String, waits: PostgresStoryStore.Waits = .init(connection: .seconds(300), request: .seconds(600), start: .seconds(300)))
        async throws -> PostgresStoryStore {
        try await PostgresStoryStore.open(url: PostgresURL(url), password: nil, waits: waits, logger: Self.logger)
    }

    /// The `StoryError` or `StoryStoreError` `body` throws, if any.
    func failure<T>(_ body: () async throws -> T) async -> (any Error)? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    func isUnreachable(_ error: (any Error)?) -> Bool {
        if case .unreachable? = error as? StoryStoreError { return true }
        return false
    }

    @Test func operationsRoundTrip() async throws {
        let (server, url) = try freshDatabase()
        let store = try await open(url)
        #expect(store.description.hasPrefix("postgres \(server.socketDirectory)"))
        #expect(try await store.matchCount() == 0)

        // Keys.
        #expect(try await store.registeredKey(of: "alice") == nil)
        try await store.register(.publicKey(Array(repeating: 7, count: 32)), for: "alice")
        try await store.register(.oldKeyDigest(Array(repeating: 9, count: 32)), for: "bob")
        #expect(try await store.registeredKey(of: "alice") == .publicKey(Array(repeating: 7, count: 32)))
        try await store.register(.publicKey(Array(repeating: 8, count: 32)), for: "bob")
        #expect(try await store.registeredKey(of: "bob") == .publicKey(Array(repeating: 8, count: 32)))

        // Matches, through the rules.
        let made = try await store.apply(.create(starter: "alice", others: ["bob", "carol"], title: "The dragon", at: 100, turnSeconds: 60))
        #expect(made.id == StoryMatchID(1))
        #expect(try await store.match(made.id) == made)
        let turned = try await store.apply(.turn(made.id, name: "alice", text: "Once upon a time", at: 110))
        #expect(turned.text == "Once upon a time" && turned.currentName == "bob" && turned.dueAt == 170)
        #expect(try await store.match(made.id) == turned)
        let refused = await failure { try await store.apply(.turn(made.id, name: "alice", text: "again", at: 111)) }
        #expect(refused as? StoryError == .notYourTurn(made.id, current: "bob"))
        #expect(try await store.match(made.id) == turned, "a refusal changes nothing")
        #expect(await failure { try await store.apply(.turn(StoryMatchID(99), name: "alice", text: "x", at: 1)) } as? StoryError
                == .unknownMatch(StoryMatchID(99)))

        // Deadlines.
        #expect(try await store.due(at: 169, limit: 10).isEmpty)
        #expect(try await store.due(at: 170, limit: 10) == [made.id])
        let timedOut = try await store.apply(.timeout(made.id, at: 170))
        #expect(timedOut.currentName == "carol" && timedOut.participants[1].missed == 1)

        // Decline, quit, rematch.
        let other = try await store.apply(.create(starter: "dan", others: ["erin", "bob"], title: "", at: 200))
        let declined = try await store.apply(.decline(other.id, name: "erin", at: 201))
        #expect(declined.participants[1].declined)
        _ = try await store.apply(.turn(other.id, name: "dan", text: "It was late.", at: 202))
        let ended = try await store.apply(.quit(other.id, name: "bob", at: 203))
        #expect(ended.ended)
        let rematch = try await store.apply(.rematch(other.id, name: "dan", at: 204))
        #expect(rematch.id == StoryMatchID(3))
        #expect(try await store.match(other.id)?.rematch == rematch.id)
        #expect(try await store.apply(.rematch(other.id, name: "bob", at: 205)) == rematch, "asked again, the same match")

        // Automatch: a new open match, then a second player joins it.
        let opened = try await store.apply(.automatch(name: "zoe", at: 300))
        let joined = try await store.apply(.automatch(name: "yan", at: 301))
        #expect(joined.id == opened.id && joined.participants.map(\.name) == ["zoe", "yan"])
        let again = try await store.apply(.automatch(name: "zoe", at: 302))
        #expect(again.id != opened.id, "never into a match one is already in")

        #expect(try await store.matches(of: "bob").map(\.id) == [made.id, other.id, rematch.id])
        #expect(try await store.matches(of: "yan").map(\.id) == [opened.id])
        #expect(try await store.matchCount() == 5)
        await store.close()

        // Opened again (the schema there already), everything is still there.
        let reopened = try await open(url)
        #expect(try await reopened.matchCount() == 5)
        #expect(try await reopened.match(made.id) == timedOut)
        await reopened.close()
    }

    @Test func importKeepsIDs() async throws {
        let (_, url) = try freshDatabase()
        var book = StoryBook()
        _ = try book.apply(.create(starter: "a", others: ["b"], title: "one", at: 1))
        _ = try book.apply(.create(starter: "b", others: ["c"], title: "two", at: 2))
        _ = try book.apply(.turn(StoryMatchID(2), name: "b", text: "Hello.", at: 3))
        let store = try await open(url)
        let count = try await store.importBook(book.matches,
                                               keys: ["a": .publicKey(Array(repeating: 1, count: 32))])
        #expect(count == 2)
        #expect(try await store.match(StoryMatchID(2))?.text == "Hello.")
        #expect(try await store.registeredKey(of: "a") == .publicKey(Array(repeating: 1, count: 32)))
        let next = try await store.apply(.create(starter: "c", others: ["d"], title: "three", at: 4))
        #expect(next.id == StoryMatchID(3), "new matches are numbered after the imported ones")
        await store.close()
    }

    @Test func tcpURL() async throws {
        let server = try PostgresServer.shared()
        let url = server.tcpURL(try server.createDatabase())
        let store = try await open(url)
        #expect(store.description == "postgres 127.0.0.1:\(server.port)/\(store.url.database)")
        _ = try await store.apply(.create(starter: "a", others: ["b"], title: "", at: 1))
        #expect(try await store.matchCount() == 1)
        await store.close()
    }

    /// Two stores on one database, as two service processes: a turn through one reaches the
    /// other's `changes()` (and not its own), and how fast.
    @Test func changesReachTheOtherInstance() async throws {
        let (_, url) = try freshDatabase()
        let first = try await open(url)
        let second = try await open(url)
        let theirs = second.changes()
        let own = first.changes()
        let match = try await first.apply(.create(starter: "a", others: ["b"], title: "", at: 1))
        var iterator = theirs.makeAsyncIterator()
        #expect(await iterator.next() == match.id)

        let rounds = 200
        var latencies: [Duration] = []
        let clock = ContinuousClock()
        for round in 0..<rounds {
            let name = round % 2 == 0 ? "a" : "b"
            let start = clock.now
            _ = try await first.apply(.turn(match.id, name: name, text: "w\(round)", at: UInt64(2 + round)))
            #expect(await iterator.next() == match.id)
            latencies.append(clock.now - start)
        }
        latencies.sort()
        let p50 = latencies[rounds / 2], p99 = latencies[rounds * 99 / 100]
        print("postgres: turn through one store → the other's changes(): p50 \(p50), p99 \(p99) (\(rounds) turns, commit included)")
        #expect(p50 < .milliseconds(50), "a turn reaches the other instance within 50 ms")

        // The first store heard none of its own.
        await first.close()
        var ownIterator = own.makeAsyncIterator()
        #expect(await ownIterator.next() == nil, "a store does not hear its own changes")
        await second.close()
    }

    /// The same turn at two instances at once: exactly one is taken, the other refused.
    @Test func concurrentTurnsOnOneMatch() async throws {
        let (_, url) = try freshDatabase()
        let first = try await open(url)
        let second = try await open(url)
        for round in 0..<50 {
            let match = try await first.apply(.create(starter: "alice", others: ["bob", "carol"], title: "r\(round)", at: 1))
            async let one = failure { try await first.apply(.turn(match.id, name: "alice", text: "one", at: 2)) }
            async let two = failure { try await second.apply(.turn(match.id, name: "alice", text: "two", at: 2)) }
            let outcomes = [await one, await two]
            let accepted = outcomes.filter { $0 == nil }.count
            let refused = outcomes.compactMap { $0 as? StoryError }.filter { $0 == .notYourTurn(match.id, current: "bob") }.count
            #expect(accepted == 1 && refused == 1, "round \(round): \(outcomes.map { $0.map { "\($0)" } ?? "accepted" })")
            let stored = try #require(try await first.match(match.id))
            #expect(stored.turnsTaken == 1 && (stored.text == "one" || stored.text == "two") && stored.currentName == "bob")
        }
        await first.close()
        await second.close()
    }

    /// Many players automatching at once through two instances: no match takes more than its
    /// places, and everyone is in exactly one.
    @Test func automatchUnderConcurrency() async throws {
        let (_, url) = try freshDatabase()
        let stores = [try await open(url), try await open(url)]
        let names = (0..<60).map { "player\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, name) in names.enumerated() {
                let store = stores[index % 2]
                group.addTask { _ = try await store.apply(.automatch(name: name, at: UInt64(index))) }
            }
            try await group.waitForAll()
        }
        var seen: [String: Int] = [:]
        for id in 1...(try await stores[0].matchCount()) {
            let match = try #require(try await stores[0].match(StoryMatchID(UInt32(id))))
            #expect(match.participants.count <= match.places && match.places == StoryRules.automatchPlaces)
            for participant in match.participants { seen[participant.name, default: 0] += 1 }
        }
        #expect(seen.count == names.count && seen.values.allSatisfy { $0 == 1 })
        for store in stores { await store.close() }
    }

    @Test func newerSchemaRefused() async throws {
        let (server, url) = try freshDatabase()
        await (try await open(url)).close()
        let database = try PostgresURL(url).database
        try server.psql(database, "UPDATE story_meta SET value = '99' WHERE key = 'schema_version'")
        let error = await failure { try await open(url) }
        guard case .newerSchema(let found, let supported, let place)? = error as? StoryStoreError else {
            Issue.record("expected newerSchema, got \(String(describing: error))")
            return
        }
        #expect(found == 99 && supported == PostgresStoryStore.schemaVersion)
        #expect(place == "postgres \(try PostgresURL(url))")
        #expect("\(error!)".contains(database))
    }

    @Test func unreachableAtStart() async throws {
        let clock = ContinuousClock()
        // No server on that socket.
        let directory = scratchDirectory("nopg")
        var start = clock.now
        var error = await failure { try await open("postgres://snap@/story?host=\(directory)") }
        #expect(isUnreachable(error), "\(String(describing: error))")
        // Fast: refused on the spot for what it is, not after a wait ran out. (Wall-clock bounds
        // are printed, not asserted: in a full test run on two cores, async work can wait
        // for a thread for a minute, and a test's clock runs meanwhile.)
        var words = String(describing: error)
        #expect(words.contains("cannot reach its database") && words.contains("no server socket"), "\(words)")
        #expect(!words.contains("longer than"))
        print("postgres: no server on the socket refused in \(clock.now - start)")
        // Nothing on that port.
        start = clock.now
        error = await failure { try await open("postgres://snap@127.0.0.1:\(try PostgresServer.freePort())/story") }
        #expect(isUnreachable(error), "\(String(describing: error))")
        words = String(describing: error)
        #expect(words.contains("connection refused") && !words.contains("longer than"), "\(words)")
        print("postgres: nothing on the port refused in \(clock.now - start)")
        // A database that is not there.
        let server = try PostgresServer.shared()
        error = await failure { try await open(server.socketURL("no_such_database")) }
        #expect(isUnreachable(error) && "\(error!)".contains("no_such_database"), "\(String(describing: error))")
    }

    /// The server stopped under an open store: requests are refused promptly in words, none
    /// is acknowledged, and once the server is back the store works again on its own
    /// (postgres-nio's pool reconnects), its LISTEN too.
    @Test func serverStoppedAndRestarted() async throws {
        let server = try PostgresServer.start()
        let url = server.socketURL(try server.createDatabase())
        let waits = PostgresStoryStore.Waits(connection: .seconds(1), request: .seconds(600), start: .seconds(300))
        let first = try await open(url, waits: waits)
        let second = try await open(url, waits: waits)
        // Before the stop, a call that found no connection within the short wait ran nothing
        // (in a full run other suites' synchronous tests can hold the cooperative pool that
        // long): it is asked again. Only that refusal; any other error is the test's failure.
        func settled<T: Sendable>(_ body: () async throws -> T) async throws -> T {
            let clock = ContinuousClock(), end = clock.now + .seconds(120)
            while true {
                do { return try await body() } catch {
                    guard isUnreachable(error), "\(error)".contains("within 1 s"), clock.now < end else { throw error }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        let match = try await settled { try await first.apply(.create(starter: "a", others: ["b"], title: "", at: 1)) }
        _ = try await settled { try await first.apply(.turn(match.id, name: "a", text: "Before.", at: 2)) }

        try server.stop()
        let clock = ContinuousClock()
        for attempt in 0..<3 {
            let start = clock.now
            let error = await failure { try await first.apply(.turn(match.id, name: "b", text: "Lost?", at: 3)) }
            let took = clock.now - start
            #expect(isUnreachable(error), "attempt \(attempt): \(String(describing: error))")
            // Bounded by the store's own connection wait (1 s here), which its words name.
            // (or at once, on a pooled connection the stopping server closed).
            let words = error.map { "\($0)" } ?? ""
            #expect(words.contains("within 1 s") || words.contains("closed") || words.contains("terminating"),
                    "attempt \(attempt): took \(took): \(words)")
            print("postgres: a turn while the database is down refused in \(took): \(error.map { "\($0)" } ?? "-")")
        }

        try server.restart()
        let back = clock.now
        var recovered: StoryMatch?
        while recovered == nil, clock.now - back < .seconds(240) {
            recovered = try? await first.match(match.id)
            if recovered == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let took = clock.now - back
        print("postgres: the store worked again \(took) after the server restarted")
        let stored = try #require(recovered, "the store reconnects after the server restarts")
        #expect(stored.text == "Before." && stored.turnsTaken == 1, "nothing refused was stored")

        // LISTEN came back too: a turn through the first reaches the second.
        let heard = Heard()
        let listener = Task { for await id in second.changes() where id == match.id { heard.add() } }
        var delivered = false
        let deadline = clock.now + .seconds(60)
        var turn = 0
        while !delivered, clock.now < deadline {
            // Until the second store listens again, a change it misses is simply missed: retry.
            let name = turn % 2 == 0 ? "b" : "a"
            guard (try? await first.apply(.turn(match.id, name: name, text: "After \(turn).", at: UInt64(10 + turn)))) != nil else {
                try await Task.sleep(for: .milliseconds(200))
                continue
            }
            turn += 1
            for _ in 0..<20 where !delivered {
                try await Task.sleep(for: .milliseconds(50))
                delivered = heard.count > 0
            }
        }
        #expect(delivered, "changes() delivers again after the server restarted")
        listener.cancel()
        await first.close()
        await second.close()
        try server.stop()
    }
}
