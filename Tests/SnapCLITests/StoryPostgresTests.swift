import Foundation
import SnapNet
import SnapTestSupport
import StoryEngine
import StoryLink
import StoryProtocol
import StoryService
import StoryStores
import Testing

/// Two `snapcards story serve --database postgres://…` processes on one real PostgreSQL
/// database (SnapTestSupport's PostgresServer) are one service.
@Suite("Story on PostgreSQL over real processes", .blocksThreads, .serialized)
struct StoryPostgresTests {
    let directory = makeRuntimeDirectory()

    func serve(_ url: String, socket: String) throws -> SnapProcess {
        let service = try SnapProcess(["story", "serve", "--database", url, "--socket", socket], runtimeDirectory: directory)
        guard service.line(startingWith: "listening on unix:", timeout: 60) != nil else {
            throw StoryTestFailure("the service did not start: \(service.errors)")
        }
        return service
    }

    func key(_ name: String) -> StoryKey {
        StoryKey(privateKeyBytes: Array(name.utf8.prefix(32)) + Array(repeating: 0x33, count: 32 - min(32, name.utf8.count)))!
    }

    @Test("two services on one PostgreSQL: a watcher on one sees the turns taken through the other", .timeLimit(.minutes(5)))
    func twoServicesOneDatabase() async throws {
        try await withTaskExecutorPreference(OffPoolExecutor.shared) {
            let server = try PostgresServer.shared()
            let url = server.socketURL(try server.createDatabase("serve"))
            let first = try serve(url, socket: directory + "/one.socket")
            let second = try serve(url, socket: directory + "/two.socket")
            defer {
                first.signal(SIGTERM)
                second.signal(SIGTERM)
                _ = first.exitStatus(timeout: 20)
                _ = second.exitStatus(timeout: 20)
            }
            let shown = "store: postgres \(try PostgresURL(url))"
            #expect(first.lines.contains(shown) && second.lines.contains(shown), "\(first.lines) \(second.lines)")

            let ann = try await StoryClient(endpoint: .unix(directory + "/one.socket"), name: "Ann", key: key("Ann"), timeoutSeconds: 10)
            let watcher = try await StoryClient(endpoint: .unix(directory + "/two.socket"), name: "Bob", key: key("Bob"), timeoutSeconds: 10)
            try await watcher.send(.watch)
            var match = try await ann.match(.create(others: ["Bob"], title: "Two services"))
            guard case .update(let created) = try await watcher.next(), created.id == match.id else {
                Issue.record("the watcher on the other service did not hear of the new match")
                return
            }
            var latencies: [Double] = []
            let clock = ContinuousClock()
            let bob = try await StoryClient(endpoint: .unix(directory + "/two.socket"), name: "Bob", key: key("Bob"), timeoutSeconds: 10)
            for turn in 0..<60 {
                let start = clock.now
                let text = "word\(turn)"
                if match.currentName == "Ann" {
                    match = try await ann.match(.turn(match.id, text: text))
                } else {
                    match = try await bob.match(.turn(match.id, text: text))
                }
                // Bob's own turns reach his watcher through his own service; Ann's through the database.
                guard case .update(let updated) = try await watcher.next(), updated.id == match.id, updated.text.hasSuffix(text) else {
                    Issue.record("the watcher missed turn \(turn)")
                    return
                }
                if turn % 2 == 0 { latencies.append(Double((clock.now - start).components.attoseconds) / 1e15) }
            }
            latencies.sort()
            print("two services on one PostgreSQL: turn → watcher on the other p50 \(latencies[latencies.count / 2]) ms, "
                + "p99 \(latencies[latencies.count * 99 / 100]) ms (\(latencies.count) turns, debug build)")
            // Two turns on one match, one through each service at once: one taken, one refused.
            let carol = try await StoryClient(endpoint: .unix(directory + "/two.socket"), name: "Ann", key: key("Ann"), timeoutSeconds: 10)
            let race = try await ann.match(.create(others: ["Bob"], title: "Race"))
            _ = try await watcher.next()
            try await ann.send(.turn(race.id, text: "one"))
            try await carol.send(.turn(race.id, text: "two"))
            let answers = [try await ann.next(), try await carol.next()]
            let taken = answers.filter { if case .match = $0 { true } else { false } }.count
            let refused = answers.filter { if case .refused(.notYourTurn, _) = $0 { true } else { false } }.count
            #expect(taken == 1 && refused == 1, "\(answers)")
        }
    }

    @Test("snap-bench story --postgres: the service's figures on PostgreSQL, and the row of two services on one database", .timeLimit(.minutes(5)))
    func benchRow() throws {
        let server = try PostgresServer.shared()
        let url = server.socketURL(try server.createDatabase("bench"))
        let run = try runSnapBench(["story", "--turns", "10", "--matches", "20", "--players", "0", "--postgres", url])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        #expect(run.output.split(separator: "\n").contains {
            $0.hasPrefix("two services on one PostgreSQL: turn → watcher on the other p50 ") && $0.contains("baseline watcher on the same service p50 ")
        }, "\(run.output)")
        for prefix in ["postgres: turn → all 3 participants' views updated: p50 ", "postgres: filling the database with 20 matches",
                       "postgres: service memory (RSS): ", "postgres: start to listening with 20 matches: "] {
            #expect(run.output.split(separator: "\n").contains { $0.hasPrefix(prefix) }, "\(prefix): \(run.output)")
        }
        #expect(run.output.contains("(the first and last shown: 2 of 2)"), "\(run.output)")
    }
}
