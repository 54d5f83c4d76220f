import ArgumentParser
import SnapBench
import SnapEngine

/// `snap-bench`: the whole-system figures against baselines measured in the same run. An
/// executable of its own, so the player's `snapcards` links none of the benchmarks or attack
/// drivers; its commands, options and output lines are those `snap bench` had (scripts and
/// tests read them), the lines' "snap bench …" prefixes included.
@main
struct Bench: ParsableCommand {
    #if GUI
    static let subcommands: [ParsableCommand.Type] = [EngineBench.self, NetBench.self, RelayBench.self, AttackBench.self, RejoinBench.self, HistoryBench.self, StoryBench.self, UIBench.self, StatisticsBench.self, BenchHost.self, BenchStoryService.self]
    #else
    static let subcommands: [ParsableCommand.Type] = [EngineBench.self, NetBench.self, RelayBench.self, AttackBench.self, RejoinBench.self, HistoryBench.self, StoryBench.self, BenchHost.self, BenchStoryService.self]
    #endif
    static let configuration = CommandConfiguration(
        commandName: "snap-bench",
        abstract: "Measure speed against baselines measured in the same run (use a release build).",
        subcommands: subcommands)
}

struct EngineBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "Engine commands per second and simulated rounds per second, against bare card moves.")

    @Option(help: "Rounds of 4-player computer play to record and replay.") var rounds = 100
    @Option(help: "Seed of the recorded play.") var seed: UInt64 = 1
    @Option(help: "Least time each measurement runs, in seconds.") var seconds = 1.0

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
    }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; measure with `swift build -c release`")
        #endif
        let result = EngineBenchmark(rounds: rounds, seed: seed, minimumSeconds: seconds).run()
        print("snap bench engine: \(rounds) rounds of 4 computer players, seed \(seed): "
            + "\(result.commands) commands, \(result.events) events, \(result.moves) card moves")
        print("engine: \(si(result.commandsPerSecond)) commands/s (\(nanoseconds(1 / result.commandsPerSecond)) each), "
            + "\(si(result.eventsPerSecond)) events/s")
        print("baseline, the same card moves on bare arrays: \(si(result.movesPerSecond)) moves/s "
            + "(\(nanoseconds(1 / result.movesPerSecond)) each)")
        print("ratio: one engine command costs \(twoDecimals(result.ratio)) bare moves")
        print("simulation: \(twoDecimals(result.roundsPerSecond)) rounds/s (bots, virtual time, the host's card check "
            + "after every command); \(twoDecimals(result.checkedRoundsPerSecond)) rounds/s with the simulation's own checks "
            + "after every event (as snapcards simulate runs)")
        let journal = try JournalBenchmark(commands: result.recorded, seats: Seat.seating(playerCount: 4),
                                           minimumSeconds: seconds).run()
        print("with the match journal: \(si(Double(journal.commands) / journal.hotPathSeconds)) commands/s on the game's path "
            + "(record appended; ratio \(twoDecimals(journal.hotPathRatio))x of \(si(journal.engineCommandsPerSecond)) without), "
            + "\(si(journal.journaledCommandsPerSecond)) commands/s until written and synced by its thread "
            + "(ratio \(twoDecimals(journal.ratio))x); \(journal.bytes / max(journal.commands, 1)) bytes per command")
        print("the journal's own share: ratio \(twoDecimals(journal.journalShareRatio))x on the game's path against "
            + "\(si(journal.clockedEngineCommandsPerSecond)) commands/s of the engine with the host's clock read for each "
            + "command (a host reads it for every input, journal or not)")
        print("the journal in time: \(nanoseconds(journal.journalSecondsPerCommand)) a command on the game's path, beside "
            + "\(nanoseconds(journal.engineSecondsPerCommand)) of the engine and \(nanoseconds(journal.clockSecondsPerCommand)) "
            + "of the clock read")
    }
}

struct NetBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "net",
        abstract: "Snap! call to verdict at every client, against a raw socket ping-pong, over Unix and TCP.")

    @Option(help: "Snap! calls (and ping-pongs) to time on each transport.") var samples = 2000
    @Option(help: "Connections to time from connect to welcome, with TLS and without.") var connections = 200

    func validate() throws {
        guard samples >= 1 else { throw ValidationError("--samples must be at least 1") }
        guard (1...100_000).contains(connections) else { throw ValidationError("--connections must be 1 to 100000") }
    }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; measure with `swift build -c release`")
        #endif
        let benchmark = NetBenchmark(samples: samples)
        print("snap bench net: \(samples) samples each, \(benchmark.clients) clients")
        for transport in [NetBenchmark.Transport.unix, .tcp] {
            let result = try benchmark.run(transport: transport)
            let label = transport == .unix ? "unix:" : "tcp: "
            print("\(label) snap → verdict at all clients p50 \(micros(result.verdictP50)), p99 \(micros(result.verdictP99)) "
                + "(max \(micros(result.verdictMax))); raw ping-pong p50 \(micros(result.pingPongP50)), "
                + "p99 \(micros(result.pingPongP99)); ratio p50 \(twoDecimals(result.ratioP50))x, "
                + "p99 \(twoDecimals(result.ratioP99))x")
            print("\(label) with the match journal written: p50 \(micros(result.journaledP50)), p99 \(micros(result.journaledP99)); "
                + "ratio to no journal p50 \(twoDecimals(result.journalRatioP50))x, p99 \(twoDecimals(result.journalRatioP99))x")
            if let pinned = result.pinned {
                print("\(label) pinned (measuring on CPU \(pinned.measuringCPU), host loop and echo on CPU \(pinned.answeringCPU)): "
                    + "snap → verdict p50 \(micros(pinned.verdictP50)); raw ping-pong p50 \(micros(pinned.pingPongP50)); "
                    + "ratio p50 \(twoDecimals(pinned.ratioP50))x")
            } else {
                print("\(label) pinned: not measured (fewer than two CPUs to run on)")
            }
        }
        // TLS against plain TCP, both through the NIO client every player uses.
        let tls = try benchmark.runTLS(connections: connections)
        print("tls:  snap → verdict at all clients p50 \(micros(tls.p(tls.tlsVerdict, 0.5))), p99 \(micros(tls.p(tls.tlsVerdict, 0.99))); "
            + "plain TCP through the same client p50 \(micros(tls.p(tls.plainVerdict, 0.5))), p99 \(micros(tls.p(tls.plainVerdict, 0.99))); "
            + "ratio p50 \(twoDecimals(tls.p(tls.tlsVerdict, 0.5) / tls.p(tls.plainVerdict, 0.5)))x, "
            + "p99 \(twoDecimals(tls.p(tls.tlsVerdict, 0.99) / tls.p(tls.plainVerdict, 0.99)))x")
        print("tls:  connect → welcome (\(tls.connections) connections) p50 \(micros(tls.p(tls.tlsWelcome, 0.5))), "
            + "p99 \(micros(tls.p(tls.tlsWelcome, 0.99))); plain TCP p50 \(micros(tls.p(tls.plainWelcome, 0.5))), "
            + "p99 \(micros(tls.p(tls.plainWelcome, 0.99))); "
            + "ratio p50 \(twoDecimals(tls.p(tls.tlsWelcome, 0.5) / tls.p(tls.plainWelcome, 0.5)))x")
    }

    private func micros(_ value: Double) -> String { "\(Int(value.rounded())) µs" }
}

func si(_ value: Double) -> String {
    if value >= 1e6 { return twoDecimals(value / 1e6) + " M" }
    if value >= 1e3 { return twoDecimals(value / 1e3) + " k" }
    return twoDecimals(value)
}

func nanoseconds(_ seconds: Double) -> String { twoDecimals(seconds * 1e9) + " ns" }

func twoDecimals(_ value: Double) -> String {
    if value < 0 { return "-" + twoDecimals(-value) }  // a difference of two timings can be below zero
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

struct RejoinBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rejoin",
        abstract: "A dropped player's seat back with the table current, against a watcher's sign-in, over a Unix socket.")

    @Option(help: "Drops and rejoins to time.") var trials = 100

    func validate() throws {
        guard trials >= 1 else { throw ValidationError("--trials must be at least 1") }
    }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; measure with `swift build -c release`")
        #endif
        let result = try RejoinBenchmark(trials: trials).run()
        print("snap bench rejoin: \(trials) trials, Unix socket")
        print("rejoin (drop seen by the host → snapshot on the new connection): p50 \(Int(result.rejoinP50)) µs, p99 \(Int(result.rejoinP99)) µs")
        print("baseline, a watcher signing in (hello → snapshot): p50 \(Int(result.signInP50)) µs, p99 \(Int(result.signInP99)) µs")
        print("ratio p50: \(twoDecimals(result.rejoinP50 / result.signInP50))")
    }
}
