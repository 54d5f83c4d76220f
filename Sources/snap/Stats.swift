import ArgumentParser
import FoundationEssentials
import SnapCommandLine
import SnapHistory
import SnapMatchFiles
import SnapNet
import SnapStatistics
#if GUI
import SnapUI
#endif

struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Each player's record over the matches hosted on this machine: wins, streaks, opponents, reaction times.",
        discussion: """
            Read from the match index beside the journals (as snapcards history). Per player: matches and \
            rounds played and won (a match is won by whoever won the most of its rounds, a tie by \
            nobody), the longest winning streaks, Snap! calls right, wrong and too late, the \
            reaction time of the correct calls (median, best, a histogram, and the median of each \
            of the last --last matches), and the record against each opponent. A reaction is timed \
            on the host's clock, from the card that made the pair to the call's verdict.
            """)

    @Option(help: "Only this player (as the table showed the name).") var player: String?
    @Flag(help: "Print JSON: {\"players\": [...]}, the same figures, times in microseconds.") var json = false
    @Option(help: "How many of the last matches the reaction trend covers.") var last = 10
    @Option(help: "Read journals from this directory instead of $XDG_STATE_HOME/snap/matches.") var directory: String?
    #if GUI
    @Flag(help: "Open the Statistics screen in a window instead (the player: --player, else the saved name).") var window = false
    @OptionGroup var windowFlags: WindowFlags
    #endif

    func validate() throws {
        if last < 1 { throw ValidationError("--last must be 1 or more matches") }
        #if GUI
        if window, json { throw ValidationError("--json prints figures; --window shows them: choose one") }
        #endif
    }

    func run() async throws {
        let folder = directory ?? MatchJournal.directory()
        let entries = try await indexedEntries(in: folder, reindex: false)
        let known = PlayerStatistics.players(in: entries)
        if let player, !known.contains(player) {
            printError(known.isEmpty
                ? "error: no player named \(player): no matches in \(folder)"
                : "error: no player named \(player) in \(folder); the players are: " + known.joined(separator: ", "))
            throw ExitCode(1)
        }
        if known.isEmpty {
            if json { say("{\"players\":[]}") } else { say("no matches in \(folder)") }
            return
        }
        let (player, last) = (self.player, self.last)
        let rounds: [IndexedRound]
        do {
            rounds = try await MatchIndex.using(directory: folder, onWarning: { printError("warning: \($0)") }) {
                try await $0.rounds(of: player)
            }
        } catch {
            printError("error: the match index of \(folder) could not be read: \(error)")
            throw ExitCode(1)
        }
        let figures = (player.map { [$0] } ?? known).map {
            PlayerStatistics.compute(player: $0, entries: entries, rounds: rounds, trendMatches: last)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            struct Document: Encodable { var players: [PlayerStatistics] }
            say(String(decoding: try encoder.encode(Document(players: figures)), as: UTF8.self))
            return
        }
        for (index, stats) in figures.enumerated() {
            if index > 0 { say("") }
            for line in Self.lines(stats, last: last) { say(line) }
        }
    }

    /// The text form: a block of lines a player.
    static func lines(_ stats: PlayerStatistics, last: Int) -> [String] {
        var lines = ["\(stats.player): \(count(stats.matchesPlayed, "match", "matches")), \(stats.matchesWon) won; "
                     + "\(count(stats.roundsPlayed, "round", "rounds")), \(stats.roundsWon) won"]
        lines.append("  longest winning streak: \(count(stats.longestMatchStreak, "match", "matches")), "
                     + count(stats.longestRoundStreak, "round", "rounds"))
        lines.append("  Snap! calls: \(stats.snapsRight) right, \(stats.snapsWrong) wrong, \(stats.snapsTooLate) too late")
        if let median = stats.reaction.medianMicros, let best = stats.reaction.bestMicros {
            lines.append("  reaction of correct calls: median \(millis(median)), best \(millis(best)), \(stats.reaction.calls) calls")
            let widest = stats.reaction.histogram.map(\.calls).max() ?? 0
            for bucket in stats.reaction.histogram {
                let range = bucket.toMillis.map { "\(bucket.fromMillis)–\($0) ms" } ?? "\(bucket.fromMillis) ms and more"
                let bar = String(repeating: "#", count: widest == 0 ? 0 : (bucket.calls * 30 + widest - 1) / widest)
                lines.append("    " + range.rightPadded(16) + "\(bucket.calls)".leftPadded(6) + "  " + bar)
            }
        } else {
            lines.append("  reaction of correct calls: none yet")
        }
        if !stats.trend.isEmpty {
            lines.append("  median reaction, last \(count(stats.trend.count, "match", "matches")) (oldest first): "
                         + stats.trend.map { $0.medianMicros.map(millis) ?? "—" }.joined(separator: ", "))
        }
        for opponent in stats.opponents {
            lines.append("  against \(opponent.name): matches \(opponent.won)–\(opponent.lost) of \(opponent.matches), "
                         + "rounds \(opponent.roundsWon)–\(opponent.roundsLost)")
        }
        return lines
    }

    static func count(_ value: Int, _ one: String, _ many: String) -> String { "\(value) \(value == 1 ? one : many)" }

    static func millis(_ micros: UInt64) -> String { "\((micros + 500) / 1_000) ms" }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
    /// Cut or filled with spaces to `width`, as NSString's padding(toLength:) did.
    func rightPadded(_ width: Int) -> String { String(prefix(width)) + String(repeating: " ", count: max(0, width - count)) }
}

#if GUI
/// `snapcards stats --window`: the Statistics screen, as the menu's Statistics button opens it.
extension Stats: WindowCommand {
    var opensWindow: Bool { window }

    @MainActor func runInWindow(_ games: GameStarter) async throws {
        let (player, directory, last) = (self.player, self.directory ?? MatchJournal.directory(), self.last)
        try await runWindow(windowFlags, games: games) { app in
            StatisticsScene(app: app, player: player, directory: directory, trendMatches: last)
        }
    }
}
#endif
