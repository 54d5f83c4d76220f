import Foundation
@testable import SnapHistory
import SnapStatistics
import Testing

/// The running totals the Statistics screen's wins chart is drawn from (moved here from the
/// window's tests: they are the index's figures, and need no window).
@Suite("A player's running totals over the matches")
struct PlayerStatisticsProgressTests {
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

    @Test("the histogram's edges, which the Statistics screen's labels are tested against (StatisticsModelTests.bucketEdges)")
    func bucketEdges() {
        #expect(PlayerStatistics.bucketEdges == [0, 250, 500, 750, 1_000, 1_500, 2_000])
    }
}
