#if GUI
import CSDL2
import Foundation
import Logging
import SnapEngine
@testable import SnapHistory
import SnapJournal
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapSession
import SnapTable
import SnapTestSupport
import Testing
@testable import SnapUI

/// The Statistics screen's layout and words: pure functions of the figures.
@Suite("The Statistics screen's charts and words", .blocksThreads)
struct StatisticsLayoutTests {
    func figures(_ name: String = "Tess") -> PlayerStatistics {
        PlayerStatistics(player: name, reaction: PlayerStatistics.Reaction())
    }

    @Test("wins over time: one column per point of width at most, each the running total's last value, the top filling the area")
    func columns() {
        let area = Rect(x: 10, y: 20, width: 100, height: 50)
        let few = StatisticsScene.columns([1, 2, 4], top: 4, in: area)
        #expect(few.count == 3)
        #expect(few.map(\.height) == [13, 25, 50])
        #expect(few.allSatisfy { $0.y + $0.height == 70 }, "standing on the axis")
        // Whole points, each column starting where the one before ended (no seam when scaled).
        #expect(few.map(\.x) == [10, 43, 77])
        #expect(few.map(\.width) == [33, 34, 33])
        // 50,000 matches: no more columns than points of width; the last column is the total.
        let many = StatisticsScene.columns(Array(1...50_000), top: 50_000, in: area)
        #expect(many.count == 100)
        #expect(zip(many, many.dropFirst()).allSatisfy { $0.x + $0.width == $1.x })
        #expect(many.last?.height == 50)
        #expect(many.first?.height == 1, "the first column holds matches 1 to 500: its last value is 500, a 1-point column")
        // A total of nothing draws nothing (no column of height 0).
        #expect(StatisticsScene.columns([0, 0, 1], top: 1, in: area).count == 1)
        #expect(StatisticsScene.columns([], top: 1, in: area).isEmpty)
    }

    @Test("the reaction histogram: a bar a bucket, the fullest as tall as the area, labelled with its range and count")
    func histogram() {
        let buckets = [PlayerStatistics.Bucket(fromMillis: 0, toMillis: 250, calls: 2),
                       PlayerStatistics.Bucket(fromMillis: 250, toMillis: 500, calls: 8),
                       PlayerStatistics.Bucket(fromMillis: 500, toMillis: nil, calls: 0)]
        let area = Rect(x: 0, y: 100, width: 300, height: 80)
        let bars = StatisticsScene.histogramBars(buckets, in: area)
        #expect(bars.map(\.label) == ["0–0.25", "0.25–0.5", "0.5+"])
        #expect(bars.map(\.count) == ["2", "8", "0"])
        #expect(bars.map(\.rect.height) == [20, 80, 1], "an empty bucket is a sliver on the axis")
        #expect(bars.map(\.rect.x) == [4, 104, 204])
        #expect(bars.allSatisfy { $0.rect.y + $0.rect.height == 180 && $0.rect.width == 92 })
    }

    @Test("the trend: a bar a match, the slowest median the tallest, a match with no timed call left without one")
    func trend() {
        let trend = [PlayerStatistics.TrendPoint(journal: "a", startedAt: 1, calls: 3, medianMicros: 400_000),
                     PlayerStatistics.TrendPoint(journal: "b", startedAt: 2, calls: 0, medianMicros: nil),
                     PlayerStatistics.TrendPoint(journal: "c", startedAt: 3, calls: 1, medianMicros: 200_400)]
        let bars = StatisticsScene.trendBars(trend, in: Rect(x: 0, y: 0, width: 300, height: 100))
        #expect(bars.map(\.label) == ["400", "—", "200"])
        #expect(bars[0].rect?.height == 100 && bars[2].rect?.height == 50)
        #expect(bars[1].rect == nil)
        #expect(bars.map(\.center) == [50, 150, 250])
    }

    @Test("the record against each opponent: most met first, and a last row saying how many more do not fit")
    func opponents() {
        var stats = figures()
        stats.opponents = (1...8).map { PlayerStatistics.Opponent(name: "P\($0)", matches: $0, won: 1, lost: 0, roundsWon: 2, roundsLost: 1) }
        let rows = StatisticsScene.opponentRows(stats, limit: 6)
        #expect(rows.map(\.name) == ["P8", "P7", "P6", "P5", "P4", "and 3 more"])
        #expect(rows[0].record == "matches 1–0 of 8 · rounds 2–1")
        stats.opponents = Array(stats.opponents.prefix(2))
        #expect(StatisticsScene.opponentRows(stats, limit: 6).map(\.name) == ["P2", "P1"])
    }

    @Test("← and → go round the players; a name not among them starts at either end")
    func picking() {
        let players = ["Ann", "Bob", "Tess"]
        #expect(StatisticsScene.neighbour(of: "Bob", in: players, forward: true) == "Tess")
        #expect(StatisticsScene.neighbour(of: "Tess", in: players, forward: true) == "Ann")
        #expect(StatisticsScene.neighbour(of: "Ann", in: players, forward: false) == "Tess")
        #expect(StatisticsScene.neighbour(of: "Zed", in: players, forward: true) == "Ann")
        #expect(StatisticsScene.neighbour(of: "Zed", in: players, forward: false) == "Tess")
        #expect(StatisticsScene.neighbour(of: "Ann", in: ["Ann"], forward: true) == nil, "no one else to show")
        #expect(StatisticsScene.neighbour(of: "Ann", in: [], forward: true) == nil)
    }

    @Test("the histogram's labels are seconds, short enough for their bars")
    func bucketLabels() {
        let labels = zip(PlayerStatistics.bucketEdges, PlayerStatistics.bucketEdges.dropFirst().map(Optional.some) + [nil]).map {
            StatisticsScene.bucketLabel(PlayerStatistics.Bucket(fromMillis: $0, toMillis: $1, calls: 0))
        }
        #expect(labels == ["0–0.25", "0.25–0.5", "0.5–0.75", "0.75–1", "1–1.5", "1.5–2", "2+"])
        let progress = [PlayerStatistics.ProgressPoint(startedAt: 1_767_225_600, matchesWon: 0, roundsWon: 0),
                        PlayerStatistics.ProgressPoint(startedAt: 1_769_817_599, matchesWon: 1, roundsWon: 2)]
        #expect(StatisticsScene.dateRange(progress) == ("2026-01-01", "2026-01-30"))
    }

    @Test("the words: the summary, the reaction, an empty history and a player with no match")
    func words() {
        var stats = figures()
        (stats.matchesPlayed, stats.matchesWon, stats.roundsPlayed, stats.roundsWon) = (1, 1, 3, 2)
        (stats.longestMatchStreak, stats.longestRoundStreak) = (1, 2)
        #expect(StatisticsScene.summaryLine(stats) == "1 match, 1 won · 3 rounds, 2 won · longest winning streak 1 match, 2 rounds")
        #expect(StatisticsScene.reactionLine(stats) == "No correct call timed yet")
        stats.reaction = PlayerStatistics.Reaction(calls: 3, medianMicros: 411_600, bestMicros: 188_000, histogram: [])
        #expect(StatisticsScene.reactionLine(stats) == "Median 412 ms · best 188 ms · 3 calls")
        let none = PlayerStatistics.Read(players: [], figures: nil, matches: 0)
        #expect(StatisticsScene.emptyText(none, player: "Tess").hasPrefix("No matches on this computer yet."))
        let others = PlayerStatistics.Read(players: ["Ann", "Bob"], figures: nil, matches: 4)
        #expect(StatisticsScene.emptyText(others, player: "Tess")
            == "Tess has played no match hosted on this computer. Press → to see the 2 players who have.")
        #expect(StatisticsScene.warningText("the match index /x/index/index.sqlite is damaged (file is not a database); it is built again from the journals")
            == "The match index was damaged; it was built again from the journals.")
    }

    @Test("the running totals behind the chart: after each match the player sat in, oldest first")
    func progress() {
        func entry(_ name: String, _ players: [String], _ winners: [String]) -> MatchIndex.Entry {
            MatchIndex.Entry(name: name, match: .init(startedAt: 1, hostName: "H", players: players, winners: winners,
                                                      ended: "done", broken: nil, damage: nil))
        }
        let entries = [entry("1", ["Tess", "Ann"], ["Tess", "Ann", "Tess"]), entry("2", ["Ann", "Bob"], ["Ann"]),
                       entry("3", ["Tess", "Bob"], ["Bob", "Tess"]), entry("4", ["Tess", "Ann"], ["Tess"])]
        let stats = PlayerStatistics.compute(player: "Tess", entries: entries, rounds: [])
        #expect(stats.progress.map(\.roundsWon) == [2, 3, 4])
        #expect(stats.progress.map(\.matchesWon) == [1, 1, 2], "a tie is nobody's match")
        #expect(stats.matchesWon == 2)
        // Not in `snapcards stats --json`: a point a match would swell it at 50,000 matches.
        let json = String(decoding: try! JSONEncoder().encode(stats), as: UTF8.self)
        #expect(!json.contains("progress") && json.contains("\"matchesWon\":2"))
    }
}

extension InProcessWindows {
@Suite("The Statistics screen in a window in the test process", .blocksThreads, .serialized)
struct StatisticsWindowTests {
    static let logger = Logger(label: "test")

    init() {
        setenv("SDL_VIDEODRIVER", "offscreen", 0)
        setenv("SDL_AUDIODRIVER", "dummy", 0)
    }

    /// One solo match of one round: `name` against three computer players, journaled in `directory`.
    static func playSolo(in directory: String, name: String) async throws {
        var configuration = HostConfiguration(hostName: name)
        configuration.bots = 3
        configuration.maxClients = 0
        configuration.speed = 0.01
        configuration.rounds = 1
        configuration.rules = Rules(turnLimit: 60)
        configuration.turnTimeout = .milliseconds(20)  // the local player never turns: the host turns for it
        let server = HostServer(configuration, loop: GameClient.group.next(), logger: logger, history: IndexedHistory())
        _ = try await server.startJournalLater(in: directory, onWarning: { _ in }).get()
        server.startWhen(1)
        let link = server.connectLocal()
        link.send(.hello(Hello(name: name)))
        _ = try await server.finished.get()
        link.close()
    }

    /// Rounds won by name and matches played by name, replayed here from the journals (not the index).
    static func replayed(_ directory: String) throws -> (wins: [String: Int], matches: [String: Int]) {
        var wins: [String: Int] = [:], matches: [String: Int] = [:]
        for path in MatchJournal.files(in: directory) {
            let replay = try MatchReplay.fold(MatchJournal.read(path: path).records)
            for winner in replay.winners { wins[winner, default: 0] += 1 }
            for player in replay.start?.players ?? [] { matches[player.name, default: 0] += 1 }
        }
        return (wins, matches)
    }

    /// Opens the screen over `directory`, lets `script` act each frame, and returns the texts it
    /// showed (each time the figures came in) and the scene at the end.
    static func open(_ directory: String, player: String, screenshot: String? = nil, quitAfter: Double = 60,
                     script: @escaping (App, StatisticsScene, Double) -> Void = { app, scene, _ in if scene.isSettled { app.quit() } })
        async throws -> (shown: [[String]], scene: StatisticsScene, frames: Int) {
        var options = WindowOptions(screenshot: screenshot, quitAfter: quitAfter, hidden: true)
        options.muted = true
        var shown: [[String]] = []
        var made: StatisticsScene?
        let app = try App(options: options, logger: logger) { app in
            let scene = StatisticsScene(app: app, player: player, directory: directory)
            scene.onShown = { shown.append($0) }
            made = scene
            return scene
        }
        let scene = try #require(made)
        app.probing.eachFrame = { app, now in script(app, scene, now) }
        try await app.runOffThePool()
        return (shown, scene, app.frames)
    }

    @Test("over a host's real journals the screen shows the player's matches, rounds won and opponents as the journals have them",
          .timeLimit(.minutes(3)))
    func realJournals() async throws {
        let directory = scratchDirectory("stats-window")
        try await Self.playSolo(in: directory, name: "Tess")
        try await Self.playSolo(in: directory, name: "Tess")
        let (wins, matches) = try Self.replayed(directory)
        #expect(matches["Tess"] == 2)
        let shot = scratchPath("stats-window.png")
        let (shown, scene, _) = try await Self.open(directory, player: "Tess", screenshot: shot)
        let texts = try #require(shown.last, "the figures never came in")
        #expect(texts.first == "Tess")
        let summary = try #require(texts.first { $0.hasPrefix("2 matches, ") }, "\(texts)")
        #expect(summary.contains("2 rounds, \(wins["Tess"] ?? 0) won"), "\(summary) against \(wins)")
        // Everyone Tess sat with: the computer players, each met twice.
        for bot in ["Ray", "Lucy", "Steve"] {
            #expect(texts.contains { $0.hasPrefix("\(bot) matches ") && $0.hasSuffix(" of 2 · rounds \(wins["Tess"] ?? 0)–\(wins[bot] ?? 0)") },
                    "\(bot) in \(texts)")
        }
        #expect(texts.contains { $0.hasPrefix("Snap! calls: ") })
        #expect(scene.warnings.isEmpty)
        // Drawn: the gold of the matches-won columns or the blue of the rounds-won ones inside
        // the wins panel when Tess won a round, and the heading's gold at the top either way.
        let picture = try Screenshot(path: shot)
        #expect(picture.share(y: 0...0.07) { r, g, b in r > 220 && g > 180 && b < 140 } > 0.01, "the gold heading")
        if (wins["Tess"] ?? 0) > 0 {
            #expect(picture.share(x: 0.08...0.48, y: 0.25...0.48) { r, g, b in (r > 220 && g > 180 && b < 140) || (b > 230 && r < 150) } > 0.01)
        }
    }

    @Test("the index is read off the window's thread: while a journal blocks its reader the screen says it is reading and keeps drawing",
          .timeLimit(.minutes(3)))
    func readsInTheBackground() async throws {
        let directory = scratchDirectory("stats-blocked")
        try await Self.playSolo(in: directory, name: "Tess")
        // A "journal" that blocks whoever opens it to read: a FIFO with no writer yet.
        let fifo = directory + "/zz-blocking.snapjournal"
        #expect(mkfifo(fifo, 0o600) == 0)
        var framesWhileReading = 0
        var released = false
        let (shown, scene, _) = try await Self.open(directory, player: "Tess") { app, scene, _ in
            if !scene.isSettled {
                framesWhileReading += 1
                app.setNeedsRedraw()
                if framesWhileReading == 20, !released {
                    released = true
                    // A writer that opens and closes: the reader sees an empty file and goes on.
                    Thread { let fd = Glibc.open(fifo, O_WRONLY); if fd >= 0 { Glibc.close(fd) } }.start()
                }
            } else {
                app.quit()
            }
        }
        #expect(framesWhileReading >= 20, "the window drew while the index was being read")
        #expect(released)
        #expect(shown.count == 1)
        #expect(shown.last?.contains { $0.hasPrefix("1 match, ") } == true, "\(shown)")
        #expect(scene.isSettled)
    }

    @Test("no journals: the screen says so in words; a damaged index is built again from the journals and says so",
          .timeLimit(.minutes(3)))
    func emptyAndDamaged() async throws {
        let empty = scratchDirectory("stats-empty")
        let (shownEmpty, _, _) = try await Self.open(empty, player: "Tess")
        #expect(shownEmpty.last?.contains { $0.hasPrefix("No matches on this computer yet.") } == true, "\(shownEmpty)")

        // The journal copied into a directory of its own: no host task of the match's can
        // touch that directory's index after it is damaged here.
        let played = scratchDirectory("stats-played")
        try await Self.playSolo(in: played, name: "Tess")
        let directory = scratchDirectory("stats-damaged")
        for path in MatchJournal.files(in: played) {
            try FileManager.default.copyItem(atPath: path, toPath: directory + "/" + URL(fileURLWithPath: path).lastPathComponent)
        }
        mkdir(directory + "/index", 0o700)
        try Data(repeating: 0x5A, count: 8_192).write(to: URL(fileURLWithPath: MatchIndex.path(in: directory)))
        let (shown, scene, _) = try await Self.open(directory, player: "Tess")
        let texts = try #require(shown.last)
        #expect(texts.contains("The match index was damaged; it was built again from the journals."), "\(texts)")
        #expect(texts.contains { $0.hasPrefix("1 match, ") }, "\(texts)")
        #expect(scene.warnings.count == 1)
    }

    @Test("→ shows the next player's figures, read again; Esc goes back to the menu", .timeLimit(.minutes(3)))
    func pickAndBack() async throws {
        let directory = scratchDirectory("stats-pick")
        try await Self.playSolo(in: directory, name: "Tess")
        var step = 0
        var players: [String] = []
        let (shown, _, _) = try await Self.open(directory, player: "Tess") { app, scene, _ in
            guard scene.isSettled || app.scene !== scene else { return }
            if app.scene is MenuScene { app.quit(); return }
            players.append(scene.player)
            switch step {
            case 0: InProcessTests.pushKey(Int(SDLK_RIGHT.rawValue))
            case 1: InProcessTests.pushKey(Int(SDLK_ESCAPE.rawValue))
            default: break
            }
            step += 1
        }
        // Tess, then the next name after hers round the list: Lucy, Ray, Steve, Tess → Lucy.
        #expect(players.first == "Tess")
        #expect(players.contains("Lucy"), "\(players)")
        #expect(shown.count == 2)
        #expect(shown.last?.first == "Lucy")
        #expect(shown.last?.contains { $0.hasPrefix("1 match, ") } == true)
    }

    @Test("a table whose round is over offers Statistics: the player's figures over this computer's journals, and Back returns to the table",
          .timeLimit(.minutes(3)))
    func fromTheTable() async throws {
        var directories = InProcessTests.directories
        directories.journals = scratchDirectory("stats-table")
        let client = GameClient.solo(name: "Tess", opponents: 1, level: .easy, speed: 0.05, seed: 5, rules: Rules(turnLimit: 30),
                                     directories: directories, logger: Self.logger)
        var table: TableScene?
        let app = try App(options: WindowOptions(quitAfter: 120, muted: true, hidden: true), logger: Self.logger) { app in
            let scene = TableScene(app: app, client: client)
            table = scene
            return scene
        }
        let scene = try #require(table)
        var step = 0
        var lastClick = -10.0
        var opened: StatisticsScene?
        var shown: [String] = []
        app.probing.eachFrame = { app, now in
            switch step {
            case 0:
                // Play Tess's seat: turn on her turn, until the round is over.
                if scene.showsStatistics {
                    app.pushClick(at: scene.placedStatisticsButton.frame.center)
                    step = 1
                } else if let seat = scene.mySeat, let view = scene.client.session.table, view.phase == .playing,
                          view.active == seat, !view.hasTurned, now - lastClick > 0.15 {
                    lastClick = now
                    app.pushClick(at: scene.pileFrame(for: seat).center)
                }
            case 1:
                guard let statistics = app.scene as? StatisticsScene else { return }
                opened = statistics
                statistics.onShown = { shown = $0 }
                step = 2
            case 2:
                guard opened?.isSettled == true else { return }
                InProcessTests.pushKey(Int(SDLK_ESCAPE.rawValue))
                step = 3
            default:
                if app.scene === scene { app.quit() }
            }
        }
        try await app.runOffThePool()
        client.leave()
        await GameClient.endHostedGames()
        #expect(step == 3, "the round ended, Statistics opened and settled")
        #expect(app.scene === scene, "Back came back to the same table")
        #expect(opened?.player == "Tess")
        // Read over the table's own journal directory: this match, under way, is there.
        #expect(shown.first == "Tess")
        #expect(shown.contains { $0.hasPrefix("1 match, ") && $0.contains("1 round") }, "\(shown)")
        #expect(shown.contains { $0.hasPrefix("Ray matches ") }, "\(shown)")
    }
}
}
#endif
