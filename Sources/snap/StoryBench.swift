import ArgumentParser
import SnapBench

/// `snap bench story`: the story service as a separate process, as players meet it.
struct StoryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "story",
        abstract: "Story: turn → every participant's view updated (against a ping round trip), memory and restart time with many matches.")

    @Option(help: "Turns to time.") var turns = 300
    @Option(help: "Matches in the journal for the memory and restart figures.") var matches = 10_000

    func validate() throws {
        guard turns >= 1 else { throw ValidationError("--turns must be at least 1") }
        guard matches >= 1 else { throw ValidationError("--matches must be at least 1") }
    }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; measure with `swift build -c release`")
        #endif
        print("snap bench story: \(turns) turns among 3 players, each watching on its own connection; \(matches) stored matches")
        let benchmark = StoryBenchmark(turns: turns, matches: matches)
        try benchmark.run { latency in
            print("turn → all 3 participants' views updated: p50 \(micros(latency.turn, 0.5)), p99 \(micros(latency.turn, 0.99)); "
                + "baseline ping round trip p50 \(micros(latency.ping, 0.5)), p99 \(micros(latency.ping, 0.99)); "
                + "ratio p50 \(twoDecimals(StoryBenchmark.percentile(latency.turn, 0.5) / StoryBenchmark.percentile(latency.ping, 0.5)))x "
                + "(a turn is journalled and fsync-ed before anyone hears of it)")
        } overTCP: { tls, plain in
            print("over TCP: turn → all 3 views updated with TLS p50 \(micros(tls, 0.5)), p99 \(micros(tls, 0.99)); "
                + "plain TCP p50 \(micros(plain, 0.5)), p99 \(micros(plain, 0.99)); "
                + "ratio p50 \(twoDecimals(StoryBenchmark.percentile(tls, 0.5) / StoryBenchmark.percentile(plain, 0.5)))x")
        } memory: { memory in
            print("service memory (RSS): \(memory.fullRSS / 1024) MiB with \(matches) matches (\(memory.listed) listed for one player; "
                + "journal \(memory.bytes / 1024) KiB), \(memory.emptyRSS / 1024) MiB with none; "
                + "\(twoDecimals(Double(memory.fullRSS - memory.emptyRSS) / Double(matches))) KiB a match")
            print("restart after kill -9 with \(matches) matches: \(millis(memory.restartSeconds)) to listening "
                + "(\(memory.restoredLine)); with none: \(millis(memory.emptyRestartSeconds)); "
                + "ratio \(twoDecimals(memory.restartSeconds / memory.emptyRestartSeconds))x")
        }
    }

    func micros(_ sorted: [Double], _ p: Double) -> String { "\(Int((StoryBenchmark.percentile(sorted, p) * 1e6).rounded())) µs" }
    func millis(_ seconds: Double) -> String { twoDecimals(seconds * 1000) + " ms" }
}
