#if GUI
import Foundation
import Logging
import SnapHistory
import SnapTable
import SnapUI

/// `snap-bench statistics`: the Statistics screen opened over N past matches (copies of one
/// real 3-round match, the index up to date as a player's is), against the main menu opened
/// in the same window in the same run:
/// - open to first frame: from the scene made to its first frame presented (the screen's
///   first frame says "Reading your matches…": the index is read off the window's thread),
/// - open to figures: until the first frame showing the figures,
/// - every frame drawn while the figures were being read (the window keeps drawing): p50, p99, max.
public struct StatisticsBenchmark {
    public struct Result: Sendable {
        public var matches: Int
        public var indexBuildSeconds: Double
        /// Medians of `repeats` openings, in ms.
        public var menuFirstFrameMs: Double
        public var firstFrameMs: Double
        public var figuresMs: Double
        /// Every frame drawn while the figures were being read, over all openings (ms, sorted).
        public var framesWhileReadingMs: [Double]
        public var framesWhileReading: Int
        public var renderer: String
    }

    public var matches: Int
    public var repeats: Int
    public var renderer: RendererChoice
    public var log: (String) -> Void

    public init(matches: Int, repeats: Int = 5, renderer: RendererChoice = .software, log: @escaping (String) -> Void = { _ in }) {
        self.matches = matches
        self.repeats = repeats
        self.renderer = renderer
        self.log = log
    }

    public func run(logger: Logger) throws -> Result {
        let root = try HistoryBenchmark.scratchRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (bytes, players) = try HistoryBenchmark.templateJournal(in: root)
        let directory = root + "/matches"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        log("writing \(matches) journals")
        try HistoryBenchmark.writeCopies(of: bytes, count: matches, into: directory)
        // A player's past journals were written long before (the index trusts a settled directory).
        Thread.sleep(forTimeInterval: 3)
        log("indexing \(matches) journals")
        let buildStart = ContinuousClock.now
        let built = try blockingAwait { try await MatchIndex.using(directory: directory) { try await $0.refresh() } }
        let buildSeconds = milliseconds(ContinuousClock.now - buildStart) / 1_000
        precondition(built.indexed == matches, "indexed \(built.indexed) of \(matches)")

        var options = WindowOptions(muted: true)
        options.renderer = renderer
        let app = try App(options: options, logger: logger, games: GameStarter(hosted: HostedGames())) { _ in IdleScene() }
        var menuTimes: [Double] = [], firstTimes: [Double] = [], figuresTimes: [Double] = []
        var whileReadingAll: [Double] = []
        var framesWhileReading = 0
        // Each opening: the scene made and shown, then the loop until the frame that `quits` waits for.
        var openedAt = ContinuousClock.now
        var firstPresented: ContinuousClock.Instant?
        var figuresPresented: ContinuousClock.Instant?
        var statistics: StatisticsScene?
        var readingFrames = 0
        app.afterPresent.append { _ in
            let now = ContinuousClock.now
            if firstPresented == nil { firstPresented = now }
            guard let scene = statistics, figuresPresented == nil else { return }
            // The scene takes the figures in its update, in the pass that draws them.
            if scene.isSettled { figuresPresented = now } else { readingFrames += 1 }
        }
        for _ in 0..<repeats {
            // The baseline: the main menu's first frame.
            (openedAt, firstPresented, figuresPresented, statistics) = (ContinuousClock.now, nil, nil, nil)
            app.show(app.menu())
            app.probing.eachFrame = { app, _ in if firstPresented != nil { app.quit() } }
            try app.run()
            menuTimes.append(milliseconds(firstPresented! - openedAt))

            (openedAt, firstPresented, figuresPresented, readingFrames) = (ContinuousClock.now, nil, nil, 0)
            let scene = StatisticsScene(app: app, player: players[0], directory: directory)
            statistics = scene
            app.show(scene)
            app.probing.recordsFrameTimes = true
            let framesBefore = app.probing.frameTimes.count
            app.probing.eachFrame = { app, _ in if figuresPresented != nil { app.quit() } }
            try app.run()
            app.probing.recordsFrameTimes = false
            firstTimes.append(milliseconds(firstPresented! - openedAt))
            figuresTimes.append(milliseconds(figuresPresented! - openedAt))
            let whileReading = app.probing.frameTimes.dropFirst(framesBefore).prefix(readingFrames)
            whileReadingAll += whileReading
            framesWhileReading += whileReading.count
            precondition(scene.hasFigures, "the screen showed no figures over \(matches) matches")
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return Result(matches: matches, indexBuildSeconds: buildSeconds, menuFirstFrameMs: median(menuTimes),
                      firstFrameMs: median(firstTimes), figuresMs: median(figuresTimes),
                      framesWhileReadingMs: whileReadingAll.sorted(), framesWhileReading: framesWhileReading / repeats,
                      renderer: app.graphics.rendererName)
    }
}
#endif
