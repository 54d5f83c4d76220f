import ArgumentParser
import Foundation
import SnapBench

struct RelayBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "A game through a relay against direct TLS, many rooms on one relay process, and the relay's copying against a plain copy.",
        discussion: """
            Latency: a RelayServer in this process on loopback, the host's room opened by \
            RelayRoom, players joining by its invitation; against the same host over a \
            direct TLS connection. Rooms and throughput: a `snapcards relay serve` process \
            (the one beside snap-bench), its CPU and memory read from /proc; the rooms' hosts \
            and players are synthetic (bytes the size and pace of a game's, which the relay \
            cannot tell from one). Everything on 127.0.0.1.
            """)

    @Flag(help: "A short run (few samples, 10 rooms, 1-2 s windows) for a smoke test.") var quick = false
    @Option(help: "Snap! calls to time through the relay and directly (default 2000; 200 with --quick).") var samples: Int?
    @Option(help: "Joins to time through the relay and directly (default 200; 20 with --quick).") var joins: Int?
    @Option(help: "Rooms of 4 players held at once on one relay process (default 1000; 10 with --quick).") var rooms: Int?
    @Option(help: "Seconds the rooms' traffic is measured (default 10; 2 with --quick).") var seconds: Double?
    @Option(help: "Seconds the relay and the plain copy each copy (default 3; 1 with --quick).") var throughputSeconds: Double?

    func validate() throws {
        if let samples { guard samples >= 1 else { throw ValidationError("--samples must be at least 1") } }
        if let joins { guard (1...100_000).contains(joins) else { throw ValidationError("--joins must be 1 to 100000") } }
        if let rooms { guard (1...100_000).contains(rooms) else { throw ValidationError("--rooms must be 1 to 100000") } }
        if let seconds { guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be 0 to 600") } }
        if let throughputSeconds {
            guard throughputSeconds > 0, throughputSeconds <= 60 else { throw ValidationError("--throughput-seconds must be 0 to 60") }
        }
    }

    func run() throws {
        #if DEBUG
        say("warning: a debug build; measure with `swift build -c release`")
        #endif
        signal(SIGPIPE, SIG_IGN)
        let snapcards = try snapExecutable()
        let benchmark = RelayBenchmark(samples: samples ?? (quick ? 200 : 2000), joins: joins ?? (quick ? 20 : 200),
                                       rooms: rooms ?? (quick ? 10 : 1000), roomSeconds: seconds ?? (quick ? 2 : 10),
                                       throughputSeconds: throughputSeconds ?? (quick ? 1 : 3))
        say("snap bench relay: \(benchmark.samples) samples, \(benchmark.joins) joins, \(benchmark.rooms) rooms of "
            + "\(RelayBenchmark.playersPerRoom) players; latency through a RelayServer in this process, rooms and "
            + "throughput through a snapcards relay serve process; 127.0.0.1")
        let verdicts = try benchmark.verdicts()
        say("relay: snap → verdict at all clients p50 \(micros(verdicts.p(verdicts.relayed, 0.5))), "
            + "p99 \(micros(verdicts.p(verdicts.relayed, 0.99))); direct TLS p50 \(micros(verdicts.p(verdicts.direct, 0.5))), "
            + "p99 \(micros(verdicts.p(verdicts.direct, 0.99))); ratio p50 \(twoDecimals(verdicts.ratioP50))x, "
            + "p99 \(twoDecimals(verdicts.ratioP99))x")
        sayHop(verdicts, what: "snap → verdict at all clients")
        let (joined, without) = try benchmark.joinTimes()
        say("relay: invitation → welcome (\(benchmark.joins) joins) p50 \(micros(joined.p(joined.relayed, 0.5))), "
            + "p99 \(micros(joined.p(joined.relayed, 0.99))); direct TLS connect → welcome p50 \(micros(joined.p(joined.direct, 0.5))), "
            + "p99 \(micros(joined.p(joined.direct, 0.99))); ratio p50 \(twoDecimals(joined.ratioP50))x")
        say("relay: joins spliced at once with the host's data connection waiting ahead: \(joined.splicesAhead) of \(joined.splices)")
        sayWithoutAhead(without, joined, apart: nil)
        sayHop(joined, what: "connect → welcome (\(benchmark.joins) joins)")
        // Players arrive seconds apart: the host's dial for the next one is not on this one's CPU.
        let (spaced, spacedWithout) = try benchmark.joinTimes(pause: 20_000)
        say("relay: invitation → welcome, joins 20 ms apart (\(benchmark.joins) joins) p50 \(micros(spaced.p(spaced.relayed, 0.5))), "
            + "p99 \(micros(spaced.p(spaced.relayed, 0.99))); direct TLS connect → welcome p50 \(micros(spaced.p(spaced.direct, 0.5))), "
            + "p99 \(micros(spaced.p(spaced.direct, 0.99))); ratio p50 \(twoDecimals(spaced.ratioP50))x; spliced at once "
            + "\(spaced.splicesAhead) of \(spaced.splices)")
        sayWithoutAhead(spacedWithout, spaced, apart: 20)
        sayHop(spaced, what: "connect → welcome, joins 20 ms apart (\(benchmark.joins) joins)")
        let rooms = try benchmark.manyRooms(snapcards: snapcards)
        say("relay: rooms \(rooms.held) of \(rooms.asked) held (\(rooms.connections) connections to the relay, set up in "
            + "\(twoDecimals(rooms.setUpSeconds)) s, open files allowed \(rooms.fileLimit)); relay CPU \(twoDecimals(rooms.cpuPercent)) % "
            + "of one core over \(twoDecimals(rooms.seconds)) s; RSS \(twoDecimals(rooms.rssMiB)) MiB, "
            + "\(twoDecimals(rooms.rssPerRoomKiB)) KiB a room above the idle relay's \(twoDecimals(rooms.idleRSSMiB)) MiB")
        say("relay: rooms' traffic is synthetic (the relay cannot tell): per player, host → player "
            + "\(RelayBenchmark.hostBytes) bytes every \(RelayBenchmark.hostEvery.nanoseconds / 1_000_000) ms (a turn's events, "
            + "a ping), player → host \(RelayBenchmark.playerBytes) bytes every \(RelayBenchmark.playerEvery.nanoseconds / 1_000_000) ms "
            + "(a pong, a turn)")
        let copied = try benchmark.throughput(snapcards: snapcards)
        say("relay: throughput \(twoDecimals(copied.relayedPerCore / 1e6)) MB/s per core through one spliced pair "
            + "(\(twoDecimals(Double(copied.relayedBytes) / 1e6)) MB in \(twoDecimals(copied.relayedWallSeconds)) s, relay CPU "
            + "\(twoDecimals(copied.relayCPUSeconds)) s, TLS in and out); plain copy loop \(twoDecimals(copied.plainPerCore / 1e6)) MB/s "
            + "per core (\(twoDecimals(Double(copied.plainBytes) / 1e6)) MB in \(twoDecimals(copied.plainWallSeconds)) s, copy thread CPU "
            + "\(twoDecimals(copied.plainCPUSeconds)) s); ratio \(twoDecimals(copied.ratio))x")
    }

    private func micros(_ value: Double) -> String { "\(Int(value.rounded())) µs" }

    /// The same figure through a bare copying hop: the floor under any relay on this machine.
    private func sayHop(_ latencies: RelayBenchmark.Latencies, what: String) {
        say("relay: \(what) through a bare copying hop (one more process, no TLS of its own, no rooms: the floor "
            + "under any relay) p50 \(micros(latencies.p(latencies.hop, 0.5))), p99 \(micros(latencies.p(latencies.hop, 0.99))); "
            + "ratio to direct TLS p50 \(twoDecimals(latencies.hopRatioP50))x; the relay against the hop p50 "
            + "\(twoDecimals(latencies.relayOverHopP50))x")
    }

    /// The same joins through a relay keeping no connection ahead, in the same run.
    private func sayWithoutAhead(_ without: [Double], _ joined: RelayBenchmark.Latencies, apart: Int?) {
        let p50 = joined.p(without, 0.5)
        say("relay: invitation → welcome" + (apart.map { ", joins \($0) ms apart," } ?? "") + " without a connection ahead "
            + "(each player announced, the relay's first form) p50 \(micros(p50)), p99 \(micros(joined.p(without, 0.99))); "
            + "ratio p50 \(twoDecimals(p50 / max(joined.p(joined.direct, 0.5), 0.001)))x; with it / without it p50 "
            + "\(twoDecimals(joined.p(joined.relayed, 0.5) / max(p50, 0.001)))x")
    }
}
