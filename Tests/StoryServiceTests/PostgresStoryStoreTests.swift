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
@testable import StoryStoresPostgres

/// `PostgresURL`: the forms `snapcards story serve --database` takes, and plain refusals.
@Suite("PostgreSQL URLs", .blocksThreads)
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

/// Counts what a listening task heard.
final class Heard: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// What only `PostgresStoryStore` does, against a real PostgreSQL server
/// (Tests/SnapTestSupport/PostgresServer): TCP, NOTIFY between instances, row locks under
/// concurrency, and a server away. What every store does is `StoryStoreContractTests`.
@Suite("PostgreSQL story store", .blocksThreads, .timeLimit(.minutes(10)))
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

    @Test("over TCP and over the socket, named by where it is (never a user)")
    func tcpURL() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try await open(server.tcpURL(database))
        #expect(store.description == "postgres 127.0.0.1:\(server.port)/\(database)")
        _ = try await store.apply(.create(starter: "a", others: ["b"], title: "", at: 1))
        #expect(try await store.matchCount() == 1)
        await store.close()
        let socket = try await open(server.socketURL(database))
        #expect(socket.description == "postgres \(server.socketDirectory):\(server.port)/\(database)")
        #expect(try await socket.matchCount() == 1)
        await socket.close()
    }

    /// Two stores on one database, as two service processes: a turn through one reaches the
    /// other's `changes()` (and not its own), and how fast (printed, not held to a limit:
    /// p50 7–15 ms in quiet full runs, 28–85 ms beside two busy loops, which failed a 50 ms limit).
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
