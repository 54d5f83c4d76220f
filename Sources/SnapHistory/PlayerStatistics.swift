#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

import SnapStatistics

/// What SnapHistory adds to the figures' values: computing them from the match index.
extension PlayerStatistics {
    /// Every player name in `entries`, sorted.
    public static func players(in entries: [MatchIndex.Entry]) -> [String] {
        Set(entries.flatMap { $0.match.flatMap { $0.startedAt == nil ? nil : $0.players } ?? [] }).sorted()
    }

    /// `player`'s figures. `rounds`: the index's rounds, oldest first (each with at least
    /// `player`'s calls); `trendMatches`: how many of the last matches the trend covers.
    public static func compute(player: String, entries: [MatchIndex.Entry], rounds: [IndexedRound],
                               trendMatches: Int = 10) -> PlayerStatistics {
        var stats = PlayerStatistics(player: player)
        var opponents: [String: Opponent] = [:]
        var matchStreak = 0
        var roundsWonSoFar = 0
        for entry in entries {
            guard let match = entry.match, match.startedAt != nil, match.players.contains(player) else { continue }
            stats.matchesPlayed += 1
            var wins: [String: Int] = [:]
            for winner in match.winners { wins[winner, default: 0] += 1 }
            let most = wins.values.max() ?? 0
            let leaders = wins.filter { $0.value == most }.map(\.key)
            let winner = most > 0 && leaders.count == 1 ? leaders[0] : nil
            if winner == player { stats.matchesWon += 1 }
            roundsWonSoFar += wins[player] ?? 0
            stats.progress.append(ProgressPoint(startedAt: match.startedAt ?? 0, matchesWon: stats.matchesWon, roundsWon: roundsWonSoFar))
            if !wins.isEmpty {
                matchStreak = winner == player ? matchStreak + 1 : 0
                stats.longestMatchStreak = max(stats.longestMatchStreak, matchStreak)
            }
            for other in Set(match.players) where other != player {
                var record = opponents[other] ?? Opponent(name: other)
                record.matches += 1
                if winner == player { record.won += 1 }
                if winner == other { record.lost += 1 }
                record.roundsWon += wins[player] ?? 0
                record.roundsLost += wins[other] ?? 0
                opponents[other] = record
            }
        }
        stats.opponents = opponents.values.sorted { $0.name < $1.name }

        var reactions: [UInt64] = []
        var roundStreak = 0
        var byMatch: [(journal: String, startedAt: UInt64, reactions: [UInt64])] = []
        for round in rounds where round.players.contains(player) {
            stats.roundsPlayed += 1
            if let winner = round.winner {
                if winner == player { stats.roundsWon += 1 }
                roundStreak = winner == player ? roundStreak + 1 : 0
                stats.longestRoundStreak = max(stats.longestRoundStreak, roundStreak)
            }
            if byMatch.last?.journal != round.journal { byMatch.append((round.journal, round.startedAt, [])) }
            for calls in round.calls where calls.player == player {
                stats.snapsRight += calls.right
                stats.snapsWrong += calls.wrong
                stats.snapsTooLate += calls.tooLate
                reactions += calls.reactions
                byMatch[byMatch.count - 1].reactions += calls.reactions
            }
        }
        reactions.sort()
        stats.reaction.calls = reactions.count
        stats.reaction.medianMicros = median(reactions)
        stats.reaction.bestMicros = reactions.first
        stats.reaction.histogram = bucketEdges.indices.map { index in
            let from = bucketEdges[index]
            let to = index + 1 < bucketEdges.count ? bucketEdges[index + 1] : nil
            let count = reactions.count { micros in micros >= UInt64(from) * 1_000 && to.map { micros < UInt64($0) * 1_000 } ?? true }
            return Bucket(fromMillis: from, toMillis: to, calls: count)
        }
        stats.trend = byMatch.suffix(max(0, trendMatches)).map { match in
            TrendPoint(journal: match.journal, startedAt: match.startedAt, calls: match.reactions.count,
                       medianMicros: median(match.reactions.sorted()))
        }
        return stats
    }

    /// What the Statistics screen shows, read off the caller's thread's way: the index of
    /// `directory` brought up to date with its journals (none there: no matches; a damaged
    /// index is built again: `onWarning` says so), every player's name, and `player`'s figures.
    public static func read(directory: String, player: String, trendMatches: Int = 10,
                            onWarning: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Read {
        guard access(directory, F_OK) == 0 else { return Read(players: [], figures: nil, matches: 0) }
        let (entries, rounds) = try await MatchIndex.using(directory: directory, onWarning: onWarning) { index in
            try await index.refresh()
            return (try await index.entries(), try await index.rounds(of: player))
        }
        let players = players(in: entries)
        let matches = entries.count { $0.match?.startedAt != nil }
        guard players.contains(player) else { return Read(players: players, figures: nil, matches: matches) }
        return Read(players: players, figures: compute(player: player, entries: entries, rounds: rounds, trendMatches: trendMatches),
                    matches: matches)
    }
}
