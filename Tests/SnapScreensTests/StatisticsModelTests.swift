#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import SnapScreens
import SnapStatistics
import SnapTable
import Testing

/// The Statistics screen's layout and words: pure functions of the figures.
@Suite("The Statistics screen's charts and words")
struct StatisticsLayoutTests {
    typealias Model = StatisticsModel

    func figures(_ name: String = "Tess") -> PlayerStatistics {
        PlayerStatistics(player: name)
    }

    @Test("wins over time: one column per point of width at most, each the running total's last value, the top filling the area")
    func columns() {
        let area = Rect(x: 10, y: 20, width: 100, height: 50)
        let few = Model.columns([1, 2, 4], top: 4, in: area)
        #expect(few.count == 3)
        #expect(few.map(\.height) == [13, 25, 50])
        #expect(few.allSatisfy { $0.y + $0.height == 70 }, "standing on the axis")
        // Whole points, each column starting where the one before ended (no seam when scaled).
        #expect(few.map(\.x) == [10, 43, 77])
        #expect(few.map(\.width) == [33, 34, 33])
        // 50,000 matches: no more columns than points of width; the last column is the total.
        let many = Model.columns(Array(1...50_000), top: 50_000, in: area)
        #expect(many.count == 100)
        #expect(zip(many, many.dropFirst()).allSatisfy { $0.x + $0.width == $1.x })
        #expect(many.last?.height == 50)
        #expect(many.first?.height == 1, "the first column holds matches 1 to 500: its last value is 500, a 1-point column")
        // A total of nothing draws nothing (no column of height 0).
        #expect(Model.columns([0, 0, 1], top: 1, in: area).count == 1)
        #expect(Model.columns([], top: 1, in: area).isEmpty)
    }

    @Test("the wins chart: rounds won behind and matches won in front, both against the rounds won in all; none without a match")
    func winsChart() throws {
        let area = Rect(x: 10, y: 20, width: 100, height: 50)
        var stats = figures()
        #expect(Model.winsChart(stats, in: area) == nil, "no match: nothing, not even the axis")
        stats.progress = [.init(startedAt: 1, matchesWon: 0, roundsWon: 0), .init(startedAt: 2, matchesWon: 0, roundsWon: 0)]
        let nothingWon = try #require(Model.winsChart(stats, in: area))
        #expect(nothingWon.top == 0 && nothingWon.rounds.isEmpty && nothingWon.matches.isEmpty, "no round won yet")
        stats.progress = [.init(startedAt: 1, matchesWon: 1, roundsWon: 2), .init(startedAt: 2, matchesWon: 1, roundsWon: 3),
                          .init(startedAt: 3, matchesWon: 2, roundsWon: 4)]
        let chart = try #require(Model.winsChart(stats, in: area))
        #expect(chart.top == 4)
        #expect(chart.rounds == Model.columns([2, 3, 4], top: 4, in: area))
        #expect(chart.matches == Model.columns([1, 1, 2], top: 4, in: area))
        #expect(chart.rounds.last?.height == 50 && chart.matches.last?.height == 25)
    }

    @Test("the reaction histogram: a bar a bucket, the fullest as tall as the area, labelled with its range and count")
    func histogram() {
        let buckets = [PlayerStatistics.Bucket(fromMillis: 0, toMillis: 250, calls: 2),
                       PlayerStatistics.Bucket(fromMillis: 250, toMillis: 500, calls: 8),
                       PlayerStatistics.Bucket(fromMillis: 500, toMillis: nil, calls: 0)]
        let area = Rect(x: 0, y: 100, width: 300, height: 80)
        let bars = Model.histogramBars(buckets, in: area)
        #expect(bars.map(\.label) == ["0–0.25", "0.25–0.5", "0.5+"])
        #expect(bars.map(\.count) == ["2", "8", "0"])
        #expect(bars.map(\.rect.height) == [20, 80, 1], "an empty bucket is a sliver on the axis")
        #expect(bars.map(\.rect.x) == [4, 104, 204])
        #expect(bars.allSatisfy { $0.rect.y + $0.rect.height == 180 && $0.rect.width == 92 })
    }

    @Test("the trend: a bar a match, the slowest median the tallest, a match with no timed call left without one")
    func trend() {
        let trend = [PlayerStatistics.TrendPoint(journal: "m", startedAt: 0, calls: 3, medianMicros: 400_000),
                     PlayerStatistics.TrendPoint(journal: "m", startedAt: 0, calls: 0, medianMicros: nil),
                     PlayerStatistics.TrendPoint(journal: "m", startedAt: 0, calls: 1, medianMicros: 200_400)]
        let bars = Model.trendBars(trend, in: Rect(x: 0, y: 0, width: 300, height: 100))
        #expect(bars.map(\.label) == ["400", "—", "200"])
        #expect(bars[0].rect?.height == 100 && bars[2].rect?.height == 50)
        #expect(bars[1].rect == nil)
        #expect(bars.map(\.center) == [50, 150, 250])
    }

    @Test("the record against each opponent: most met first, and a last row saying how many more do not fit")
    func opponents() {
        var stats = figures()
        stats.opponents = (1...8).map { PlayerStatistics.Opponent(name: "P\($0)", matches: $0, won: 1, lost: 0, roundsWon: 2, roundsLost: 1) }
        let rows = Model.opponentRows(stats, limit: 6)
        #expect(rows.map(\.name) == ["P8", "P7", "P6", "P5", "P4", "and 3 more"])
        #expect(rows[0].record == "matches 1–0 of 8 · rounds 2–1")
        stats.opponents = Array(stats.opponents.prefix(2))
        #expect(Model.opponentRows(stats, limit: 6).map(\.name) == ["P2", "P1"])
    }

    @Test("← and → go round the players; a name not among them starts at either end")
    func picking() {
        let players = ["Ann", "Bob", "Tess"]
        #expect(Model.neighbour(of: "Bob", in: players, forward: true) == "Tess")
        #expect(Model.neighbour(of: "Tess", in: players, forward: true) == "Ann")
        #expect(Model.neighbour(of: "Ann", in: players, forward: false) == "Tess")
        #expect(Model.neighbour(of: "Zed", in: players, forward: true) == "Ann")
        #expect(Model.neighbour(of: "Zed", in: players, forward: false) == "Tess")
        #expect(Model.neighbour(of: "Ann", in: ["Ann"], forward: true) == nil, "no one else to show")
        #expect(Model.neighbour(of: "Ann", in: [], forward: true) == nil)
    }

    /// The histogram's edges, in milliseconds, as SnapHistory's `PlayerStatistics.bucketEdges`
    /// has them (a module these tests do not link: it keeps the index in SQLite over NIO).
    static let bucketEdges = [0, 250, 500, 750, 1_000, 1_500, 2_000]

    @Test("the histogram's labels are seconds, short enough for their bars")
    func bucketLabels() {
        let edges = Self.bucketEdges
        let labels = zip(edges, edges.dropFirst().map(Optional.some) + [nil]).map {
            Model.bucketLabel(PlayerStatistics.Bucket(fromMillis: $0, toMillis: $1, calls: 0))
        }
        #expect(labels == ["0–0.25", "0.25–0.5", "0.5–0.75", "0.75–1", "1–1.5", "1.5–2", "2+"])
        let progress = [PlayerStatistics.ProgressPoint(startedAt: 1_767_225_600, matchesWon: 0, roundsWon: 0),
                        PlayerStatistics.ProgressPoint(startedAt: 1_769_817_599, matchesWon: 1, roundsWon: 2)]
        #expect(Model.dateRange(progress) == ("2026-01-01", "2026-01-30"))
        #expect(Model.dateRange([]) == ("", ""))
    }

    @Test("seconds to two places as printf's %.2f wrote them (the labels were made with it), trailing zeros dropped")
    func seconds() {
        // Every whole hundredth of a second up to 20 s: the edges are such (no half-hundredth to round).
        for millis in stride(from: 0, through: 20_000, by: 10) {
            var printed = String(format: "%.2f", Double(millis) / 1_000)
            while printed.hasSuffix("0") { printed.removeLast() }
            if printed.hasSuffix(".") { printed.removeLast() }
            #expect(Model.seconds(millis) == printed, "\(millis) ms")
        }
        #expect(Model.seconds(1_004) == "1" && Model.seconds(1_006) == "1.01" && Model.seconds(2_999) == "3")
    }

    @Test("a match's day is the UTC day gmtime gives, with no clock or time zone: leap days, centuries, the epoch")
    func days() {
        func gmtimeDay(_ seconds: UInt64) -> String {
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
        }
        #expect(Model.day(0) == "1970-01-01")
        #expect(Model.day(951_782_400) == "2000-02-29" && Model.day(951_868_799) == "2000-02-29")
        #expect(Model.day(1_709_251_199) == "2024-02-29" && Model.day(1_709_251_200) == "2024-03-01")
        #expect(Model.day(4_107_542_400) == "2100-03-01", "2100 is no leap year")
        var generator = SystemRandomNumberGenerator()
        let seconds = (0..<2_000).map { _ in UInt64.random(in: 0..<8_000_000_000, using: &generator) }
            + stride(from: 0, to: 8_000_000_000, by: 86_400 * 97 + 3_599).map { $0 }
        for second in seconds {
            #expect(Model.day(second) == gmtimeDay(second), "\(second)")
        }
    }

    @Test("the words: the summary, the reaction, an empty history and a player with no match")
    func words() {
        var stats = figures()
        (stats.matchesPlayed, stats.matchesWon, stats.roundsPlayed, stats.roundsWon) = (1, 1, 3, 2)
        (stats.longestMatchStreak, stats.longestRoundStreak) = (1, 2)
        #expect(Model.summaryLine(stats) == "1 match, 1 won · 3 rounds, 2 won · longest winning streak 1 match, 2 rounds")
        #expect(Model.reactionLine(stats) == "No correct call timed yet")
        stats.reaction = PlayerStatistics.Reaction(calls: 3, medianMicros: 411_600, bestMicros: 188_000, histogram: [])
        #expect(Model.reactionLine(stats) == "Median 412 ms · best 188 ms · 3 calls")
        let none = PlayerStatistics.Read(players: [], figures: nil, matches: 0)
        #expect(Model.emptyText(none, player: "Tess").hasPrefix("No matches on this computer yet."))
        let others = PlayerStatistics.Read(players: ["Ann", "Bob"], figures: nil, matches: 4)
        #expect(Model.emptyText(others, player: "Tess")
            == "Tess has played no match hosted on this computer. Press → to see the 2 players who have.")
        #expect(Model.emptyText(PlayerStatistics.Read(players: ["Ann"], figures: nil, matches: 1), player: "Tess")
            == "Tess has played no match hosted on this computer. Press → to see Ann.")
        #expect(Model.warningText("the match index /x/index/index.sqlite is damaged (file is not a database); it is built again from the journals")
            == "The match index was damaged; it was built again from the journals.")
        #expect(Model.warningText("kept in memory") == "Note: kept in memory")
        (stats.snapsRight, stats.snapsWrong, stats.snapsTooLate) = (37, 4, 2)
        #expect(Model.callsLine(stats) == "Snap! calls: 37 right, 4 wrong, 2 too late")
        #expect(Model.legend(stats) == (rounds: "rounds won (2)", matches: "matches won (1)"))
        stats.trend = [PlayerStatistics.TrendPoint(journal: "m", startedAt: 0, calls: 1, medianMicros: 1)]
        #expect(Model.panels(stats).map(\.heading) == ["Wins over time", "Reaction time of correct Snap! calls", "Against each opponent",
                                                       "Median reaction in ms, last 1 match"])
        #expect(Model.failedText("disk I/O error")
            == "Your matches could not be read: disk I/O error. The journals are untouched; `snapcards history --reindex` builds the index again.")
    }
}

/// The Statistics screen's rules: reading, picking a player, going back.
@Suite("The Statistics screen's model")
struct StatisticsModelTests {
    typealias Model = StatisticsModel

    static let players = ["Ann", "Lucy", "Ray", "Tess"]

    static func read(_ player: String, players: [String] = players) -> PlayerStatistics.Read {
        var figures = PlayerStatistics(player: player)
        (figures.matchesPlayed, figures.matchesWon, figures.roundsPlayed, figures.roundsWon) = (2, 1, 2, 1)
        figures.opponents = [PlayerStatistics.Opponent(name: "Ray", matches: 2, won: 1, lost: 1, roundsWon: 1, roundsLost: 1)]
        return PlayerStatistics.Read(players: players, figures: players.contains(player) ? figures : nil, matches: 2)
    }

    @Test("opened, the screen asks for the player's figures and says it is reading; the figures come in as an intent")
    func reading() {
        var model = Model(player: "Tess", now: 0)
        #expect(model.handle(.open, now: 0) == [.readStatistics(player: "Tess")])
        #expect(model.state == .reading && !model.isSettled && model.isAnimating && !model.hasFigures)
        #expect(model.texts == ["Tess", "Reading your matches…"])
        #expect(model.readingLine == "Reading your matches.")
        _ = model.update(now: 0.34)
        #expect(model.readingLine == "Reading your matches..")
        _ = model.update(now: 0.67)
        #expect(model.readingLine == "Reading your matches...")
        _ = model.update(now: 1.0)
        #expect(model.readingLine == "Reading your matches.", "the dots go round three times a second")
        #expect(!model.canPick && model.footer == "Esc  back", "no one to pick before the names are read")

        let warning = "the match index /x is damaged (file is not a database); it is built again from the journals"
        #expect(model.handle(.read(player: "Tess", Self.read("Tess"), warnings: [warning]), now: 1.1).isEmpty)
        #expect(model.isSettled && model.hasFigures && !model.isAnimating)
        #expect(model.warnings == [warning])
        #expect(model.warningLine == "The match index was damaged; it was built again from the journals.")
        #expect(model.texts == ["Tess", "The match index was damaged; it was built again from the journals.",
                                "2 matches, 1 won · 2 rounds, 1 won · longest winning streak 0 matches, 0 rounds",
                                "No correct call timed yet", "Snap! calls: 0 right, 0 wrong, 0 too late",
                                "Ray matches 1–1 of 2 · rounds 1–1"])
        #expect(model.canPick && model.footer == "← →  another player     Esc  back")
    }

    @Test("a reading that fails says why in words; an empty history says so; neither has figures")
    func failedAndEmpty() {
        var model = Model(player: "Tess", now: 0)
        _ = model.handle(.open, now: 0)
        _ = model.handle(.readingFailed(player: "Tess", why: "disk I/O error", warnings: []), now: 1)
        #expect(model.state == .failed("disk I/O error") && model.isSettled && !model.hasFigures)
        #expect(model.texts == ["Tess", Model.failedText("disk I/O error")])
        #expect(model.handle(.next, now: 2).isEmpty && model.player == "Tess", "no names to go round")

        var empty = Model(player: "Tess", now: 0)
        _ = empty.handle(.open, now: 0)
        _ = empty.handle(.read(player: "Tess", PlayerStatistics.Read(players: [], figures: nil, matches: 0), warnings: []), now: 1)
        #expect(empty.isSettled && !empty.hasFigures && !empty.canPick)
        #expect(empty.texts.last?.hasPrefix("No matches on this computer yet.") == true)
    }

    @Test("← and → read the player before or after, round the list; nothing to pick while reading or with no one else")
    func pick() {
        var model = Model(player: "Tess", now: 0)
        _ = model.handle(.open, now: 0)
        #expect(model.handle(.next, now: 0.5).isEmpty && model.player == "Tess", "still reading: the names are not known")
        _ = model.handle(.read(player: "Tess", Self.read("Tess"), warnings: ["kept in memory"]), now: 1)
        #expect(model.handle(.next, now: 2) == [.readStatistics(player: "Ann")], "after the last, the first")
        #expect(model.player == "Ann" && model.state == .reading && !model.canPick)
        #expect(model.warnings == ["kept in memory"], "the last reading's warning stays until the next one's come in")
        _ = model.handle(.read(player: "Ann", Self.read("Ann"), warnings: []), now: 3)
        #expect(model.warnings.isEmpty)
        #expect(model.handle(.previous, now: 4) == [.readStatistics(player: "Tess")], "before the first, the last")
        _ = model.handle(.read(player: "Tess", Self.read("Tess"), warnings: []), now: 5)
        #expect(model.handle(.previous, now: 6) == [.readStatistics(player: "Ray")])

        // A name no match has (a new player's saved name): → starts at the first, ← at the last.
        var stranger = Model(player: "Zed", now: 0)
        _ = stranger.handle(.open, now: 0)
        _ = stranger.handle(.read(player: "Zed", Self.read("Zed"), warnings: []), now: 1)
        #expect(!stranger.hasFigures && stranger.canPick)
        #expect(stranger.texts.last == "Zed has played no match hosted on this computer. Press → to see the 4 players who have.")
        var forward = stranger, backward = stranger
        #expect(forward.handle(.next, now: 2) == [.readStatistics(player: "Ann")])
        #expect(backward.handle(.previous, now: 2) == [.readStatistics(player: "Tess")])

        // The only player in the index: no one else to show.
        var alone = Model(player: "Ann", now: 0)
        _ = alone.handle(.open, now: 0)
        _ = alone.handle(.read(player: "Ann", Self.read("Ann", players: ["Ann"]), warnings: []), now: 1)
        #expect(!alone.canPick && alone.footer == "Esc  back")
        #expect(alone.handle(.next, now: 2).isEmpty && alone.handle(.previous, now: 2).isEmpty && alone.isSettled)
        // Someone else's name and one player: → shows that one.
        var other = Model(player: "Tess", now: 0)
        _ = other.handle(.open, now: 0)
        _ = other.handle(.read(player: "Tess", Self.read("Tess", players: ["Ann"]), warnings: []), now: 1)
        #expect(other.canPick && other.handle(.next, now: 2) == [.readStatistics(player: "Ann")])
    }

    @Test("an outcome no longer waited for (another player's, or once settled) is dropped")
    func staleOutcome() {
        var model = Model(player: "Tess", now: 0)
        _ = model.handle(.open, now: 0)
        _ = model.handle(.read(player: "Ann", Self.read("Ann"), warnings: ["kept in memory"]), now: 1)
        _ = model.handle(.readingFailed(player: "Ann", why: "gone", warnings: []), now: 1)
        #expect(model.state == .reading && model.warnings.isEmpty)
        _ = model.handle(.read(player: "Tess", Self.read("Tess"), warnings: []), now: 2)
        let settled = model
        _ = model.handle(.readingFailed(player: "Tess", why: "late", warnings: ["kept in memory"]), now: 3)
        _ = model.handle(.read(player: "Tess", Self.read("Tess", players: ["Tess"]), warnings: []), now: 3)
        #expect(model.state == settled.state && model.warnings.isEmpty)
    }

    @Test("Back and Esc go where the screen was opened from: the menu, or the screen it was opened over; even while reading")
    func back() {
        var fromMenu = Model(player: "Tess", now: 0)
        _ = fromMenu.handle(.open, now: 0)
        #expect(fromMenu.handle(.back, now: 0.1) == [.show(.menu)])
        var fromTable = Model(player: "Tess", opener: .scene, now: 0)
        _ = fromTable.handle(.open, now: 0)
        _ = fromTable.handle(.read(player: "Tess", Self.read("Tess"), warnings: []), now: 1)
        #expect(fromTable.handle(.back, now: 2) == [.returnToOpener])
    }
}
