import Foundation
import SnapJournal
import SnapProtocol
import StoryEngine
import SnapNet
import StoryService

/// `snap bench story`: the story service as a separate process (this executable's
/// `snap story serve`), as players meet it.
public struct StoryBenchmark {
    /// Seconds, sorted: a turn until every participant's view is updated, and a ping round trip.
    public struct Latency: Sendable {
        public var turn: [Double]
        public var ping: [Double]
    }

    /// The service's memory with `matches` stored matches and with none, and its restarts.
    public struct Memory: Sendable {
        /// VmRSS in KiB.
        public var fullRSS: Int
        public var emptyRSS: Int
        /// Matches the service lists for one player.
        public var listed: Int
        /// Journal bytes of the `matches` matches.
        public var bytes: Int
        /// From spawning to listening: after a kill -9 with the matches, and with none.
        public var restartSeconds: Double
        public var emptyRestartSeconds: Double
        /// The service's "restored …" line after the kill.
        public var restoredLine: String
    }

    public let turns: Int
    public let matches: Int

    public init(turns: Int, matches: Int) {
        self.turns = turns
        self.matches = matches
    }

    /// Times the turns (then calls `latency`), then measures memory and restarts (then `memory`).
    public func run(_ latency: (Latency) -> Void, overTCP: ([Double], [Double]) -> Void, memory: (Memory) -> Void) throws {
        var template = Array("/tmp/snapsb-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // 1. Turn → every participant's view updated, against a ping round trip.
        let service = try ServiceProcess(directory: directory, journal: directory + "/live.journal")
        let times = try measureTurns(socket: service.socket)
        service.stop()
        latency(Latency(turn: times.turn, ping: times.ping))

        // 1b. The same over TCP on loopback, with TLS and without (the baseline).
        var over: [ServiceProcess.TCP: [Double]] = [:]
        for tcp in [ServiceProcess.TCP.plain, .tls] {
            let service = try ServiceProcess(directory: directory, journal: directory + "/\(tcp).journal", tcp: tcp)
            defer { service.stop() }
            guard let port = service.port else { throw StoryTestError("the service printed no TCP port") }
            var trust = ServerTrust(knownHosts: KnownHosts(path: directory + "/known_hosts"))
            trust.plainTCPForBenchmarks = tcp == .plain
            over[tcp] = try measureTurns(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust).turn
        }
        overTCP(over[.tls] ?? [], over[.plain] ?? [])

        // 2. Memory and restart time: an empty journal (baseline), then `matches` matches.
        let empty = try ServiceProcess(directory: directory, journal: directory + "/empty.journal")
        let emptyRSS = empty.residentKiB
        empty.stop()
        let emptyRestart = try ServiceProcess(directory: directory, journal: directory + "/empty.journal")
        emptyRestart.stop()
        let full = directory + "/full.journal"
        let bytes = try writeJournal(full, matches: matches)
        let loaded = try ServiceProcess(directory: directory, journal: full)
        let check = try StoryClient(endpoint: .unix(loaded.socket), name: "Ann", key: benchKey("Ann"))
        let listed = try check.list().count
        let fullRSS = loaded.residentKiB
        loaded.signalKill()  // a crash: the restart below is a recovery
        let restart = try ServiceProcess(directory: directory, journal: full)
        restart.stop()
        memory(Memory(fullRSS: fullRSS, emptyRSS: emptyRSS, listed: listed, bytes: bytes,
                      restartSeconds: restart.startSeconds, emptyRestartSeconds: emptyRestart.startSeconds,
                      restoredLine: restart.restoredLine))
    }

    /// A fixed key pair per name, so that the journal written below can name its public key.
    func benchKey(_ name: String) -> StoryKey {
        StoryKey(privateKeyBytes: Array(name.utf8.prefix(32)) + Array(repeating: 0x5A, count: 32 - min(32, name.utf8.count)))!
    }

    /// A journal as the service writes it: three players' keys, `matches` matches of 5 turns.
    func writeJournal(_ path: String, matches: Int) throws -> Int {
        var bytes = Journal.header(kind: StoryRecord.journalKind)
        let names = ["Ann", "Bob", "Cy"]
        for name in names { Journal.frame(StoryRecord.publicKey(name: name, key: benchKey(name).publicKey).bytes, into: &bytes) }
        let sentence = "The dragon slept under the hill while the village argued about who should wake it, and nobody volunteered."
        for index in 0..<matches {
            let starter = names[index % 3]
            let others = names.filter { $0 != starter }
            Journal.frame(StoryRecord.command(.create(starter: starter, others: others, title: "", at: 1_700_000_000)).bytes, into: &bytes)
            let order = [starter] + others
            for turn in 0..<5 {
                let command = StoryCommand.turn(StoryMatchID(UInt32(index + 1)), name: order[turn % 3], text: sentence, at: 1_700_000_000)
                Journal.frame(StoryRecord.command(command).bytes, into: &bytes)
            }
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw StoryTestError("cannot write \(path)") }
        return bytes.count
    }

    func measureTurns(socket: String) throws -> (turn: [Double], ping: [Double]) {
        try measureTurns(endpoint: .unix(socket), trust: nil)
    }

    func measureTurns(endpoint: StoryEndpoint, trust: ServerTrust?) throws -> (turn: [Double], ping: [Double]) {
        let names = ["Ann", "Bob", "Cy"]
        let actors = try names.map { try StoryClient(endpoint: endpoint, name: $0, key: benchKey($0), trust: trust) }
        let watchers = try names.map { try StoryClient(endpoint: endpoint, name: $0, key: benchKey($0), trust: trust) }
        for watcher in watchers { try watcher.send(.watch) }
        let pinger = try StoryClient(endpoint: endpoint, name: "Pinger", key: benchKey("Pinger"), trust: trust)
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

struct StoryTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `snap story serve` as a child process of the benchmark.
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

    init(directory: String, journal: String, tcp: TCP? = nil) throws {
        socket = directory + "/story.socket"
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["story", "serve", "--socket", socket, "--journal", journal]
            + (tcp == nil ? [] : ["--listen", "127.0.0.1:0", "--open"]) + (tcp == .plain ? ["--bench-plain-tcp"] : [])
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
