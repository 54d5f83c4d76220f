import ArgumentParser
import SnapBench

/// `snap-bench story`: the story service as a separate process, as players meet it.
struct StoryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "story",
        abstract: "Story: turn → every participant's view updated (against a ping round trip), memory and restart time with many matches.")

    @Option(help: "Turns to time.") var turns = 300
    @Option(help: "Matches in the database for the memory and start figures (the issue asks 1000000).") var matches = 10_000
    @Option(help: "Scripted players for the sustained turns a second (two a match, each on its own connection; 0: none).")
    var players = 1000
    @Option(help: "At most this many seconds of sustained turns.") var seconds = 10.0
    @Option(help: "An empty PostgreSQL database (postgres://USER@HOST/DB or the socket form): the same figures on it (lines starting \"postgres:\"), then two services on one database; without it those rows are left out.")
    var postgres: String?

    func validate() throws {
        guard turns >= 1 else { throw ValidationError("--turns must be at least 1") }
        guard matches >= 1 else { throw ValidationError("--matches must be at least 1") }
        guard players == 0 || (2...5000).contains(players) else { throw ValidationError("--players must be 0 or 2 to 5000") }
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be above 0 and at most 600") }
    }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; measure with `swift build -c release`")
        #endif
        print("snap bench story: \(turns) turns among 3 players, each watching on its own connection; \(matches) stored matches")
        let benchmark = StoryBenchmark(turns: turns, matches: matches, players: players, sustainedSeconds: seconds)
        try benchmark.run { latency in
            print("turn → all 3 participants' views updated: p50 \(micros(latency.turn, 0.5)), p99 \(micros(latency.turn, 0.99)); "
                + "baseline ping round trip p50 \(micros(latency.ping, 0.5)), p99 \(micros(latency.ping, 0.99)); "
                + "ratio p50 \(ratio(latency.turn, latency.ping, 0.5)) "
                + "(a turn is committed to SQLite, WAL with synchronous=FULL, before anyone hears of it)")
            print("turn p99 against the ping's p99: \(ratio(latency.turn, latency.ping, 0.99)) (both above through the product's StoryClient, "
                + "each message awaited from this benchmark's thread: four a turn, two a ping)")
            print("the same on plain blocking Unix sockets (a request one write, a reply one read: the service alone, nothing of a client's), "
                + "on the same service just after: turn p50 \(micros(latency.turnOnSockets, 0.5)), p99 \(micros(latency.turnOnSockets, 0.99)); "
                + "ping p50 \(micros(latency.pingOnSockets, 0.5)), p99 \(micros(latency.pingOnSockets, 0.99)); "
                + "ratio p50 \(ratio(latency.turnOnSockets, latency.pingOnSockets, 0.5)), p99 \(ratio(latency.turnOnSockets, latency.pingOnSockets, 0.99))")
            print("the turn's parts, in this process on a file beside the service's: the store's apply(turn) alone p50 "
                + "\(micros(latency.storeApply, 0.5)), p99 \(micros(latency.storeApply, 0.99)) (BEGIN IMMEDIATE … COMMIT, its fsync "
                + "included); a 4 KiB write and fdatasync alone p50 \(micros(latency.fdatasync, 0.5)), p99 \(micros(latency.fdatasync, 0.99))"
                + "; with fsync instead (what SQLite calls on commit: sqlite-nio builds it without HAVE_FDATASYNC) p50 "
                + "\(micros(latency.fsync, 0.5)), p99 \(micros(latency.fsync, 0.99))")
        } overTCP: { tls, plain in
            print("over TCP: turn → all 3 views updated with TLS p50 \(micros(tls, 0.5)), p99 \(micros(tls, 0.99)); "
                + "plain TCP p50 \(micros(plain, 0.5)), p99 \(micros(plain, 0.99)); "
                + "ratio p50 \(ratio(tls, plain, 0.5))")
        } memory: { memory in
            print("filling the database with \(matches) matches (5 turns each, batched inserts): \(millis(memory.fillSeconds)); "
                + "\(memory.bytes / 1024) KiB on disk")
            print("service memory (RSS): \(memory.fullRSS / 1024) MiB with \(matches) matches (the first and last shown: \(memory.listed) of 2; "
                + "database \(memory.bytes / 1024) KiB), \(memory.emptyRSS / 1024) MiB with none; "
                + "\(twoDecimals(Double(memory.fullRSS - memory.emptyRSS) / Double(matches))) KiB a match")
            print("start to listening with \(matches) matches: \(millis(memory.startSeconds))")
            print("restart after kill -9 with \(matches) matches: \(millis(memory.restartSeconds)) to listening "
                + "(\(memory.restoredLine)); with none: \(millis(memory.emptyRestartSeconds)); "
                + "ratio \(twoDecimals(memory.restartSeconds / memory.emptyRestartSeconds))x")
        } sustained: { rate in
            print("sustained: \(rate.players) players in \(rate.players / 2) matches, each on its own connection: "
                + "\(rate.turns) turns in \(twoDecimals(rate.seconds)) s = \(Int(rate.turnsPerSecond.rounded())) turns a second "
                + "(each committed before its answer; sign-ins took \(twoDecimals(rate.signInSeconds)) s)")
        }
        if let postgres {
            try benchmark.runPostgres(postgres) { latency in
                print("postgres: turn → all 3 participants' views updated: p50 \(micros(latency.turn, 0.5)), p99 \(micros(latency.turn, 0.99)); "
                    + "baseline ping round trip p50 \(micros(latency.ping, 0.5)), p99 \(micros(latency.ping, 0.99)); "
                    + "ratio p50 \(ratio(latency.turn, latency.ping, 0.5)) "
                    + "(with \(matches) stored matches; each turn a committed transaction first)")
            } memory: { memory in
                print("postgres: filling the database with \(matches) matches (batched inserts): \(millis(memory.fillSeconds))")
                print("postgres: service memory (RSS): \(memory.fullRSS / 1024) MiB with \(matches) matches (the first and last shown: "
                    + "\(memory.listed) of 2), \(memory.emptyRSS / 1024) MiB with none")
                print("postgres: start to listening with \(matches) matches: \(millis(memory.startSeconds)); after kill -9: "
                    + "\(millis(memory.restartSeconds)); with none: \(millis(memory.emptyRestartSeconds))")
            } sustained: { rate in
                print("postgres: sustained: \(rate.players) players in \(rate.players / 2) matches, each on its own connection: "
                    + "\(rate.turns) turns in \(twoDecimals(rate.seconds)) s = \(Int(rate.turnsPerSecond.rounded())) turns a second "
                    + "(sign-ins took \(twoDecimals(rate.signInSeconds)) s)")
            }
            let (other, same) = try benchmark.measureTwoServices(database: postgres)
            print("two services on one PostgreSQL: turn → watcher on the other p50 \(micros(other, 0.5)), p99 \(micros(other, 0.99)); "
                + "baseline watcher on the same service p50 \(micros(same, 0.5)), p99 \(micros(same, 0.99)) "
                + "(the other hears through NOTIFY on commit)")
        } else {
            print("two services on one PostgreSQL: left out (give --postgres postgres://… to measure it)")
        }
    }

    func micros(_ sorted: [Double], _ p: Double) -> String { "\(Int((StoryBenchmark.percentile(sorted, p) * 1e6).rounded())) µs" }
    func millis(_ seconds: Double) -> String { twoDecimals(seconds * 1000) + " ms" }
    /// `turn`'s percentile `p` over `ping`'s, as "N.NNx".
    func ratio(_ turn: [Double], _ ping: [Double], _ p: Double) -> String {
        twoDecimals(StoryBenchmark.percentile(turn, p) / StoryBenchmark.percentile(ping, p)) + "x"
    }
}
