import Dispatch
import Foundation
import Logging
import SnapBytes
import SnapJournal
import SnapPlatform
import SnapProtocol
import StoryEngine
import SnapNet
import StoryLink
import StoryProtocol
import StoryService
import StoryStores
import StoryStoresPostgres

/// `snap-bench story`: the story service as a separate process (`snapcards story serve`, the
/// `snapcards` beside this executable), as players meet it.
public struct StoryBenchmark: Sendable {
    /// Seconds, sorted: a turn until every participant's view is updated, and a ping round trip.
    public struct Latency: Sendable {
        public var turn: [Double]
        public var ping: [Double]
        /// The turn's parts, sorted, taken in this process on a file beside the service's:
        /// the store's `apply(turn)` alone (BEGIN IMMEDIATE … COMMIT, the commit's fsync
        /// included), and a 4 KiB write with its `fdatasync` alone, and with `fsync` (what
        /// SQLite calls). Empty for PostgreSQL.
        public var storeApply: [Double] = []
        public var fdatasync: [Double] = []
        public var fsync: [Double] = []
        /// The same turns and pings on plain blocking Unix sockets (`RawStoryClient`: a
        /// request one `write`, a reply one `read`), the service's own time with nothing of a
        /// client's, on the same service just after. Empty for PostgreSQL.
        public var turnOnSockets: [Double] = []
        public var pingOnSockets: [Double] = []
    }

    /// The service's memory with `matches` stored matches and with none, and its restarts.
    public struct Memory: Sendable {
        /// VmRSS in KiB.
        public var fullRSS: Int
        public var emptyRSS: Int
        /// Of the first and the last stored match, how many the service showed (2).
        public var listed: Int
        /// Database bytes with the `matches` matches (the file and its write-ahead log).
        public var bytes: Int
        /// Seconds filling the database took (batched inserts, `importBook`).
        public var fillSeconds: Double
        /// From spawning to listening: the first start on the filled database, after a kill -9
        /// with the matches, and with none.
        public var startSeconds: Double
        public var restartSeconds: Double
        public var emptyRestartSeconds: Double
        /// The service's "restored …" line after the kill.
        public var restoredLine: String
    }

    /// Many scripted players taking turns as fast as the service answers them.
    public struct Sustained: Sendable {
        public var players: Int
        public var turns: Int
        public var seconds: Double
        /// Seconds the players' sign-ins took (each registers a key: a commit each).
        public var signInSeconds: Double
        public var turnsPerSecond: Double { seconds > 0 ? Double(turns) / seconds : 0 }
    }

    public let turns: Int
    public let matches: Int
    /// Scripted players for the sustained rate (two a match), and its bounds.
    public let players: Int
    public let sustainedSeconds: Double
    public let sustainedTurns: Int

    public init(turns: Int, matches: Int, players: Int = 1000, sustainedSeconds: Double = 10, sustainedTurns: Int = 100_000) {
        self.turns = turns
        self.matches = matches
        self.players = players
        self.sustainedSeconds = sustainedSeconds
        self.sustainedTurns = sustainedTurns
    }

    /// Times the turns (then calls `latency`), then measures memory and restarts (then
    /// `memory`), then the sustained rate of many players (then `sustained`).
    public func run(_ latency: (Latency) -> Void, overTCP: ([Double], [Double]) -> Void, memory: (Memory) -> Void,
                    sustained: (Sustained) -> Void = { _ in }) throws {
        var template = Array("/tmp/snapsb-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // 1. Turn → every participant's view updated, against a ping round trip.
        let service = try ServiceProcess(directory: directory, database: directory + "/live.sqlite")
        let times = try measureTurns(socket: service.socket)
        let onSockets = try measureTurns { name in try RawStoryClient(unixPath: service.socket, name: name, key: benchKey(name)) }
        service.stop()
        let parts = try measureStoreParts(directory: directory)
        latency(Latency(turn: times.turn, ping: times.ping, storeApply: parts.apply, fdatasync: parts.fdatasync, fsync: parts.fsync,
                        turnOnSockets: onSockets.turn, pingOnSockets: onSockets.ping))

        // 1b. The same over TCP on loopback, with TLS and without (the baseline).
        var over: [ServiceProcess.TCP: [Double]] = [:]
        for tcp in [ServiceProcess.TCP.plain, .tls] {
            let service = try ServiceProcess(directory: directory, database: directory + "/\(tcp).sqlite", tcp: tcp)
            defer { service.stop() }
            guard let port = service.port else { throw StoryTestError("the service printed no TCP port") }
            var trust = ServerTrust(knownHosts: KnownHosts(path: directory + "/known_hosts"))
            trust.plainTCPForBenchmarks = tcp == .plain
            over[tcp] = try measureTurns(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust).turn
        }
        overTCP(over[.tls] ?? [], over[.plain] ?? [])

        // 2. Memory and start time: an empty database (baseline), then `matches` matches.
        let empty = try ServiceProcess(directory: directory, database: directory + "/empty.sqlite")
        let emptyRSS = empty.residentKiB
        empty.stop()
        let emptyRestart = try ServiceProcess(directory: directory, database: directory + "/empty.sqlite")
        emptyRestart.stop()
        let full = directory + "/full.sqlite"
        let fillStart = ContinuousClock.now
        try fillDatabase(full, matches: matches)
        let fillSeconds = seconds(ContinuousClock.now - fillStart)
        let bytes = [full, full + "-wal"].reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
        let loaded = try ServiceProcess(directory: directory, database: full)
        // The first and the last match read back; no list (Ann takes part in every one of
        // them, so her list would read them all, which is that request's memory, not the service's).
        let check = try BenchStoryClient(endpoint: .unix(loaded.socket), name: "Ann", key: benchKey("Ann"))
        let listed = try [1, matches].filter { try check.match(.show(StoryMatchID(UInt32($0)))).id.value == UInt32($0) }.count
        let fullRSS = loaded.residentKiB
        loaded.signalKill()  // a crash: the restart below is a recovery
        let restart = try ServiceProcess(directory: directory, database: full)
        restart.stop()
        memory(Memory(fullRSS: fullRSS, emptyRSS: emptyRSS, listed: listed, bytes: bytes, fillSeconds: fillSeconds,
                      startSeconds: loaded.startSeconds, restartSeconds: restart.startSeconds,
                      emptyRestartSeconds: emptyRestart.startSeconds, restoredLine: restart.restoredLine))

        // 3. Sustained turns a second: `players` players, two a match, each on its own connection.
        if players >= 2 {
            let service = try ServiceProcess(directory: directory, database: directory + "/sustained.sqlite",
                                             extra: ["--connection-limit", String(players + 16)])
            defer { service.stop() }
            sustained(try measureSustained(socket: service.socket))
        }
    }

    /// Two services on one PostgreSQL database (`url`, `postgres://…`), as two processes:
    /// Ann takes turns through the first; Bob watches on the second (through the database's
    /// NOTIFY) and Cy on the first (the baseline in the same run). Each turn's time until
    /// each watcher has it, sorted: (other service, same service).
    public func measureTwoServices(database url: String) throws -> (other: [Double], same: [Double]) {
        var template = Array("/tmp/snapsp-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["one", "two"] { mkdir(directory + "/" + name, 0o700) }
        let first = try ServiceProcess(directory: directory + "/one", database: url)
        defer { first.stop() }
        let second = try ServiceProcess(directory: directory + "/two", database: url)
        defer { second.stop() }
        let ann = try BenchStoryClient(endpoint: .unix(first.socket), name: "Ann", key: benchKey("Ann"))
        let bob = try BenchStoryClient(endpoint: .unix(first.socket), name: "Bob", key: benchKey("Bob"))
        let cy = try BenchStoryClient(endpoint: .unix(first.socket), name: "Cy", key: benchKey("Cy"))
        let otherWatcher = try BenchStoryClient(endpoint: .unix(second.socket), name: "Bob", key: benchKey("Bob"))
        let sameWatcher = try BenchStoryClient(endpoint: .unix(first.socket), name: "Cy", key: benchKey("Cy"))
        for watcher in [otherWatcher, sameWatcher] { try watcher.send(.watch) }
        var pacer = TokenBucket(capacity: 20, perSecond: 25)
        let origin = ContinuousClock.now
        var match = try ann.match(.create(others: ["Bob", "Cy"], title: "Two services"))
        for watcher in [otherWatcher, sameWatcher] { _ = try watcher.next() }
        var other: [Double] = [], same: [Double] = []
        for turn in 0..<turns {
            let writer = [ann, bob, cy][match.current!]
            let wait = pacer.wait(at: ContinuousClock.now - origin)
            if wait > .zero { Thread.sleep(forTimeInterval: seconds(wait)) }
            _ = pacer.take(at: ContinuousClock.now - origin)
            let start = ContinuousClock.now
            try writer.send(.turn(match.id, text: "word\(turn)"))
            // Both are blocking reads: the same service's watcher (the quicker path) is read
            // first, so the other's time is its own unless the baseline is the slower one.
            guard case .update(let seen) = try sameWatcher.next(), seen.id == match.id else {
                throw StoryTestError("the watcher on the same service missed turn \(turn)")
            }
            same.append(seconds(ContinuousClock.now - start))
            guard case .update(let updated) = try otherWatcher.next(), updated.id == match.id else {
                throw StoryTestError("the watcher on the other service missed turn \(turn)")
            }
            other.append(seconds(ContinuousClock.now - start))
            guard case .match(let answered) = try writer.next() else { throw StoryTestError("no answer to turn \(turn)") }
            match = answered
            if match.ended {
                match = try ann.match(.create(others: ["Bob", "Cy"], title: "Two services"))
                for watcher in [otherWatcher, sameWatcher] { _ = try watcher.next() }
            }
        }
        return (other.sorted(), same.sorted())
    }

    /// The same figures with the service on PostgreSQL (`url`: an empty database, which is
    /// filled): memory and start with none and with `matches` matches, then a turn's
    /// latency and the sustained rate on that database. The matches are added first so
    /// that every later figure is taken with them stored.
    public func runPostgres(_ url: String, latency: (Latency) -> Void, memory: (Memory) -> Void,
                            sustained: (Sustained) -> Void = { _ in }) throws {
        var template = Array("/tmp/snapsq-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "snap.bench.story")
        logger.logLevel = .warning
        let log = logger
        let store = try blockingAwait { try await PostgresStoryStore.open(url: url, logger: log) }
        defer { try? blockingAwait { await store.close() } }
        let held = try blockingAwait { try await store.matchCount() }
        guard held == 0 else { throw StoryTestError("--postgres needs an empty database; \(url) holds \(held) matches") }

        let empty = try ServiceProcess(directory: directory, database: url)
        let emptyRSS = empty.residentKiB
        let emptyStart = empty.startSeconds
        empty.stop()
        let fillStart = ContinuousClock.now
        try fill(store, matches: matches)
        let fillSeconds = seconds(ContinuousClock.now - fillStart)
        let loaded = try ServiceProcess(directory: directory, database: url)
        let check = try BenchStoryClient(endpoint: .unix(loaded.socket), name: "Ann", key: benchKey("Ann"))
        let listed = try [1, matches].filter { try check.match(.show(StoryMatchID(UInt32($0)))).id.value == UInt32($0) }.count
        let fullRSS = loaded.residentKiB
        loaded.signalKill()
        let restart = try ServiceProcess(directory: directory, database: url,
                                         extra: ["--connection-limit", String(players + 16)])
        defer { restart.stop() }
        memory(Memory(fullRSS: fullRSS, emptyRSS: emptyRSS, listed: listed, bytes: 0, fillSeconds: fillSeconds,
                      startSeconds: loaded.startSeconds, restartSeconds: restart.startSeconds,
                      emptyRestartSeconds: emptyStart, restoredLine: restart.restoredLine))
        let times = try measureTurns(socket: restart.socket)
        latency(Latency(turn: times.turn, ping: times.ping))
        if players >= 2 { sustained(try measureSustained(socket: restart.socket)) }
    }

    /// `turns` turns applied to an SQLite store in this process, each timed, and after each a
    /// 4 KiB write and `fdatasync` of a file beside it, then the same with `fsync`, timed:
    /// what of a turn is the store, and what of the store is the disk (SQLite syncs with
    /// `fsync`: sqlite-nio builds it without `HAVE_FDATASYNC`). Back to back, as the
    /// service's turns above come (three writers and a pinger each within their budget: no
    /// idle gaps); a disk left idle between writes answers its next `fsync` slower here, 2 ms
    /// rather than under 1.
    func measureStoreParts(directory: String) throws -> (apply: [Double], fdatasync: [Double], fsync: [Double]) {
        let turns = self.turns
        let path = directory + "/parts.sqlite"
        return try blockingAwait {
            let store = try await SQLiteStoryStore.open(path: path)
            let descriptor = open(directory + "/parts.fsync", O_CREAT | O_WRONLY, 0o600)
            guard descriptor >= 0 else { throw StoryTestError("cannot open \(directory)/parts.fsync") }
            defer { close(descriptor) }
            let page = [UInt8](repeating: 0x5A, count: 4096)
            func timedWrite(_ sync: (Int32) -> Int32) throws -> Double {
                let write = ContinuousClock.now
                guard pwrite(descriptor, page, page.count, 0) == page.count, sync(descriptor) == 0 else {
                    throw StoryTestError("cannot write \(directory)/parts.fsync: \(String(cString: strerror(errno)))")
                }
                return self.seconds(ContinuousClock.now - write)
            }
            var apply: [Double] = [], dataSync: [Double] = [], fullSync: [Double] = []
            var match = try await store.apply(.create(starter: "Ann", others: ["Bob", "Cy"], title: "Bench", at: 1))
            for turn in 0..<turns {
                if match.ended { match = try await store.apply(.create(starter: "Ann", others: ["Bob", "Cy"], title: "Bench", at: 1)) }
                let start = ContinuousClock.now
                match = try await store.apply(.turn(match.id, name: match.participants[match.current!].name, text: "word\(turn)", at: 2))
                apply.append(self.seconds(ContinuousClock.now - start))
                dataSync.append(try timedWrite(fdatasync))
                fullSync.append(try timedWrite(fsync))
            }
            await store.close()
            return (apply.sorted(), dataSync.sorted(), fullSync.sorted())
        }
    }

    /// `matches` matches as the old benchmark's journal held them (three players, five
    /// turns each), written to a new SQLite database in batches through `importBook`.
    func fillDatabase(_ path: String, matches: Int) throws {
        let store = try blockingAwait { try await SQLiteStoryStore.open(path: path) }
        defer { try? blockingAwait { await store.close() } }
        try fill(store, matches: matches)
    }

    /// Adds `matches` matches to `store` through `importBook`, 20,000 a transaction.
    func fill(_ store: any StoryStore, matches: Int) throws {
        let names = ["Ann", "Bob", "Cy"]
        let sentence = "The dragon slept under the hill while the village argued about who should wake it, and nobody volunteered."
        let text = Array(repeating: sentence, count: 5).joined(separator: " ")
        let keys = Dictionary(uniqueKeysWithValues: names.map { ($0, StoryRegisteredKey.publicKey(benchKey($0).publicKey)) })
        let chunk = 20_000
        for first in stride(from: 0, to: matches, by: chunk) {
            let batch = (first..<min(matches, first + chunk)).map { index -> StoryMatch in
                let starter = index % 3
                let order = [names[starter]] + names.filter { $0 != names[starter] }
                return StoryMatch(id: StoryMatchID(UInt32(index + 1)), title: "", participants: order.map { StoryParticipant(name: $0, wrote: true) },
                                  places: 3, current: 5 % 3, text: text, createdAt: 1_700_000_000, lastTurnAt: 1_700_000_000, turnsTaken: 5)
            }
            let batchKeys = first == 0 ? keys : [:]
            _ = try blockingAwait { try await store.importBook(batch, keys: batchKeys, source: "snap-bench") }
        }
    }

    /// Players in pairs, each pair a match; a few threads each take the turns of their
    /// matches, all sent before the answers are read, until the count or the time is up.
    func measureSustained(socket: String) throws -> Sustained {
        let signInStart = ContinuousClock.now
        let clients = try (0..<(players / 2 * 2)).map { index in
            let name = "P\(index)"
            return try BenchStoryClient(endpoint: .unix(socket), name: name, key: benchKey(name))
        }
        let signInSeconds = seconds(ContinuousClock.now - signInStart)
        var made: [(id: StoryMatchID, players: [BenchStoryClient])] = []
        for pair in stride(from: 0, to: clients.count, by: 2) {
            let match = try clients[pair].match(.create(others: ["P\(pair + 1)"], title: ""))
            made.append((match.id, [clients[pair], clients[pair + 1]]))
        }
        let matches = made
        let threads = 4
        let deadline = ContinuousClock.now + .milliseconds(Int(sustainedSeconds * 1000))
        let perThread = sustainedTurns / threads
        let counts = TurnCounts(threads)
        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let mine = matches.indices.filter { $0 % threads == thread }.map { matches[$0] }
            var writer = Array(repeating: 0, count: mine.count)
            var taken = 0, round = 0
            // Each player writes once a round and a round takes longer than 1/25 s once
            // there are enough matches: within the service's budget of 30 a second.
            var pacer = TokenBucket(capacity: 1, perSecond: 12)
            while taken < perThread, ContinuousClock.now < deadline {
                let wait = pacer.wait(at: ContinuousClock.now - start)
                if wait > .zero { Thread.sleep(forTimeInterval: seconds(wait)) }
                _ = pacer.take(at: ContinuousClock.now - start)
                for (index, match) in mine.enumerated() {
                    try? match.players[writer[index]].send(.turn(match.id, text: "w\(round)"))
                }
                for (index, match) in mine.enumerated() {
                    guard case .match? = try? match.players[writer[index]].next() else { continue }
                    writer[index] ^= 1
                    taken += 1
                }
                round += 1
            }
            counts.set(thread, taken)
        }
        let elapsed = seconds(ContinuousClock.now - start)
        return Sustained(players: clients.count, turns: counts.total, seconds: elapsed, signInSeconds: signInSeconds)
    }

    /// A fixed key pair per name, so that the database filled above can name its public key.
    func benchKey(_ name: String) -> StoryKey {
        StoryKey(privateKeyBytes: Array(name.utf8.prefix(32)) + Array(repeating: 0x5A, count: 32 - min(32, name.utf8.count)))!
    }

    func measureTurns(socket: String) throws -> (turn: [Double], ping: [Double]) {
        try measureTurns(endpoint: .unix(socket), trust: nil)
    }

    /// Turns and pings through the product's `StoryClient` (`BenchStoryClient`).
    func measureTurns(endpoint: StoryEndpoint, trust: ServerTrust?) throws -> (turn: [Double], ping: [Double]) {
        try measureTurns { name in try BenchStoryClient(endpoint: endpoint, name: name, key: benchKey(name), trust: trust) }
    }

    /// Ann, Bob and Cy take turns in one match, each also watching on a second connection;
    /// a fourth connection pings. Each turn is timed from its send until all three watchers
    /// have the update, each ping from its send until its pong, alternately.
    func measureTurns(_ connect: (String) throws -> any TimedStoryClient) throws -> (turn: [Double], ping: [Double]) {
        let names = ["Ann", "Bob", "Cy"]
        let actors = try names.map(connect)
        let watchers = try names.map(connect)
        for watcher in watchers { try watcher.send(.watch) }
        let pinger = try connect("Pinger")
        // Clients keep to the service's budget (30 requests a second per connection).
        var pacers = Array(repeating: TokenBucket(capacity: 20, perSecond: 25), count: 4)
        let origin = ContinuousClock.now
        func pace(_ index: Int) {
            let wait = pacers[index].wait(at: ContinuousClock.now - origin)
            if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.attoseconds) / 1e18 + Double(wait.components.seconds)) }
            _ = pacers[index].take(at: ContinuousClock.now - origin)
        }
        var match = try actors[0].match(.create(others: ["Bob", "Cy"], title: "Bench"))
        for watcher in watchers { _ = try watcher.next() }
        var turnTimes: [Double] = []
        var pingTimes: [Double] = []
        for turn in 0..<turns {
            pace(3)
            let pingStart = ContinuousClock.now
            try pinger.ping(UInt64(turn))
            pingTimes.append(seconds(ContinuousClock.now - pingStart))

            let writer = match.current!
            pace(writer)
            let start = ContinuousClock.now
            try actors[writer].send(.turn(match.id, text: "word\(turn)"))
            for watcher in watchers {
                guard case .update(let updated) = try watcher.next(), updated.id == match.id else {
                    throw StoryTestError("a watcher missed turn \(turn)")
                }
            }
            turnTimes.append(seconds(ContinuousClock.now - start))
            guard case .match(let answered) = try actors[writer].next() else { throw StoryTestError("no answer to turn \(turn)") }
            match = answered
            if match.ended {
                match = try actors[0].match(.create(others: ["Bob", "Cy"], title: "Bench"))
                for watcher in watchers { _ = try watcher.next() }
            }
        }
        return (turnTimes.sorted(), pingTimes.sorted())
    }

    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Nearest rank.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
    }
}

/// Turns each thread took.
final class TurnCounts: @unchecked Sendable {  // each thread writes its own slot; read after all joined
    private let counts: UnsafeMutableBufferPointer<Int>
    init(_ threads: Int) { counts = .allocate(capacity: threads); counts.initialize(repeating: 0) }
    deinit { counts.deallocate() }
    func set(_ thread: Int, _ count: Int) { counts[thread] = count }
    var total: Int { counts.reduce(0, +) }
}

struct StoryTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `snapcards story serve` as a child process of the benchmark.
final class ServiceProcess {
    let process = Process()
    let socket: String
    /// From spawning to the "listening on" line.
    private(set) var startSeconds = 0.0
    private(set) var restoredLine = ""

    /// The TCP port, with `tcp`.
    private(set) var port: Int?

    /// `tcp`: also on 127.0.0.1, with TLS (`.tls`) or without (`.plain`, for the baseline).
    enum TCP { case tls, plain }

    init(directory: String, database: String, tcp: TCP? = nil, extra: [String] = []) throws {
        socket = directory + "/story.socket"
        if let tcp {
            // Over TCP, with TLS and without: both this executable's `story-service`, so
            // that the pair differs in TLS alone (plain TCP is not in the player's snap).
            process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            process.arguments = ["story-service", "--socket", socket, "--database", database, "--listen", "127.0.0.1:0"]
                + (tcp == .plain ? ["--plain-tcp"] : []) + extra
        } else {
            process.executableURL = URL(fileURLWithPath: try snapExecutable())
            process.arguments = ["story", "serve", "--socket", socket, "--database", database] + extra
        }
        // Its certificate is made in the benchmark's directory, not the player's.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = directory + "/state"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        let start = ContinuousClock.now
        try process.run()
        var text = ""
        while !text.contains(tcp == nil ? "listening on" : "listening on tcp:") || !text.hasSuffix("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { throw StoryTestError("the service stopped: \(text)") }
            text += String(decoding: data, as: UTF8.self)
        }
        let elapsed = ContinuousClock.now - start
        startSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        restoredLine = text.split(separator: "\n").first { $0.hasPrefix("restored") }.map(String.init) ?? ""
        port = text.split(separator: "\n").first { $0.hasPrefix("listening on tcp:") }.flatMap { Int($0.split(separator: ":").last ?? "") }
    }

    /// VmRSS of the service, in KiB.
    var residentKiB: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    func signalKill() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
