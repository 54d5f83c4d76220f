import ArgumentParser
import Dispatch
import Foundation
import SnapBench
import SnapHistory

struct HistoryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "snapcards history and a host's won count at N past matches, against none, and the index built from N journals.")

    @Option(help: "Past matches to measure at, comma-separated (each a copy of one 3-round match).") var matches = "5000"
    @Option(help: "Runs of each timed step; the median is printed.") var repeats = 5

    func validate() throws {
        guard counts != nil else { throw ValidationError("--matches takes whole numbers, 1 or more, comma-separated") }
        guard repeats >= 1 else { throw ValidationError("--repeats must be at least 1") }
    }

    private var counts: [Int]? {
        let values = matches.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 1 }) else { return nil }
        return values.map { $0! }
    }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; measure with `swift build -c release`")
        #endif
        let benchmark = HistoryBenchmark(matchCounts: counts!, repeats: repeats) { FileHandle.standardError.write(Data("snap bench history: \($0)\n".utf8)) }
        let figures = try blockingAwait { try await benchmark.run() }
        print("snap bench history: one 3-player, 3-round match's journal (turn limit 100, \(figures.first?.journalBytes ?? 0) bytes) copied N times; "
            + "medians of \(repeats) runs")
        let none = figures.first!
        for figure in figures {
            print("\(figure.matches) past matches: snapcards history \(ms(figure.historySeconds)) "
                + "(\(figure.historyLines) lines; ratio \(twoDecimals(figure.historySeconds / none.historySeconds))x of none), "
                + "won count \(ms(figure.wonCountSeconds)) (ratio \(twoDecimals(figure.wonCountSeconds / none.wonCountSeconds))x), "
                + "index built from the journals in \(ms(figure.indexBuildSeconds)) (copies written in \(ms(figure.copySeconds)))")
        }
    }
}

private func ms(_ seconds: Double) -> String { twoDecimals(seconds * 1e3) + " ms" }

