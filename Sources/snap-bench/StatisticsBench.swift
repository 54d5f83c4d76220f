#if GUI
import ArgumentParser
import Foundation
import SnapBench
import SnapUI

struct StatisticsBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "statistics",
        abstract: "The Statistics screen opened over N past matches: first frame and figures shown, against the main menu's first frame.")

    @Option(help: "Past matches (copies of one 3-round match, indexed before the screen opens).") var matches = 50_000
    @Option(help: "Openings of each screen; the median is printed.") var repeats = 5
    @Option(help: "software or accelerated.") var renderer = UIBench.BenchRenderer.software

    func validate() throws {
        guard (1...200_000).contains(matches) else { throw ValidationError("--matches must be 1 to 200000") }
        guard repeats >= 1 else { throw ValidationError("--repeats must be at least 1") }
    }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; measure with `swift build -c release`")
        #endif
        let result: StatisticsBenchmark.Result
        do {
            result = try StatisticsBenchmark(matches: matches, repeats: repeats,
                                             renderer: renderer == .software ? .software : .accelerated) {
                FileHandle.standardError.write(Data("snap bench statistics: \($0)\n".utf8))
            }.run(logger: makeLogger("snap.bench", verbose: false))
        } catch {
            print("snap bench statistics: error: \(error)")
            throw ExitCode(4)
        }
        print("snap bench statistics: \(result.matches) past matches (one 3-player, 3-round match copied), index built in "
            + "\(twoDecimals(result.indexBuildSeconds * 1_000)) ms; \(result.renderer) renderer; medians of \(repeats) openings")
        print("  main menu (baseline): first frame \(twoDecimals(result.menuFirstFrameMs)) ms")
        print("  Statistics screen: first frame \(twoDecimals(result.firstFrameMs)) ms "
            + "(ratio \(twoDecimals(result.firstFrameMs / max(0.001, result.menuFirstFrameMs)))x of the menu's), "
            + "figures shown \(twoDecimals(result.figuresMs)) ms")
        let frames = result.framesWhileReadingMs
        func at(_ q: Int) -> String { frames.isEmpty ? "—" : twoDecimals(frames[min(frames.count - 1, (q * frames.count + 99) / 100 - 1)]) }
        print("  frames drawn while reading: \(result.framesWhileReading) an opening; p50 \(at(50)) ms, p99 \(at(99)) ms, "
            + "max \(frames.last.map(twoDecimals) ?? "—") ms")
    }
}
#endif
