#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One player's figures over every match in the index: what `snapcards stats` prints. Pure:
/// computed from `MatchIndex.entries()` and `MatchIndex.rounds(of:)`.
///
/// A match is won by the player who won strictly more of its rounds than anyone else (a tie
/// is nobody's). Streaks run over the matches (and rounds) the player sat in, oldest first; a
/// match or round nobody won (ended before a round was) neither extends nor breaks one.
public struct PlayerStatistics: Sendable, Equatable, Codable {
    public var player: String
    public var matchesPlayed = 0
    public var matchesWon = 0
    public var roundsPlayed = 0
    public var roundsWon = 0
    public var longestMatchStreak = 0
    public var longestRoundStreak = 0
    public var snapsRight = 0
    public var snapsWrong = 0
    public var snapsTooLate = 0
    /// The correct calls' reaction times (see `MatchFacts.Calls.reactions`).
    public var reaction: Reaction
    /// The last matches the player sat in (oldest first): each one's correct calls.
    public var trend: [TrendPoint] = []
    /// Everyone the player shared a table with, by name.
    public var opponents: [Opponent] = []
    /// Each match the player sat in, oldest first, with the running totals after it: the
    /// Statistics screen's chart of wins over time. Not in `snapcards stats --json` (a point a match).
    public var progress: [ProgressPoint] = []

    private enum CodingKeys: String, CodingKey {
        case player, matchesPlayed, matchesWon, roundsPlayed, roundsWon, longestMatchStreak, longestRoundStreak
        case snapsRight, snapsWrong, snapsTooLate, reaction, trend, opponents
    }

    public struct ProgressPoint: Sendable, Equatable {
        public var startedAt: UInt64
        /// Matches won and rounds won so far, this match included.
        public var matchesWon: Int
        public var roundsWon: Int

        public init(startedAt: UInt64, matchesWon: Int, roundsWon: Int) {
            (self.startedAt, self.matchesWon, self.roundsWon) = (startedAt, matchesWon, roundsWon)
        }
    }

    public struct Reaction: Sendable, Equatable, Codable {
        public var calls = 0
        public var medianMicros: UInt64?
        public var bestMicros: UInt64?
        public var histogram: [Bucket] = []
    }

    /// Correct calls with a reaction of at least `fromMillis` and under `toMillis` (nil: no bound).
    public struct Bucket: Sendable, Equatable, Codable {
        public var fromMillis: Int
        public var toMillis: Int?
        public var calls: Int
    }

    public struct TrendPoint: Sendable, Equatable, Codable {
        public var journal: String
        public var startedAt: UInt64
        public var calls: Int
        public var medianMicros: UInt64?
    }

    public struct Opponent: Sendable, Equatable, Codable {
        public var name: String
        /// Matches both sat in; of those, won by the player and by the opponent.
        public var matches = 0
        public var won = 0
        public var lost = 0
        /// Rounds of those matches won by the player and by the opponent.
        public var roundsWon = 0
        public var roundsLost = 0
    }

    /// The histogram's edges, in milliseconds.
    public static let bucketEdges = [0, 250, 500, 750, 1_000, 1_500, 2_000]

    /// Every player name in `entries`, sorted.
    public static func players(in entries: [MatchIndex.Entry]) -> [String] {
        Set(entries.flatMap { $0.match.flatMap { $0.startedAt == nil ? nil : $0.players } ?? [] }).sorted()
    }

    /// `player`'s figures. `rounds`: the index's rounds, oldest first (each with at least
    /// `player`'s calls); `trendMatches`: how many of the last matches the trend covers.
    public static func compute(player: String, entries: [MatchIndex.Entry], rounds: [IndexedRound],
                               trendMatches: Int = 10) -> PlayerStatistics {
        var stats = PlayerStatistics(player: player, reaction: Reaction())
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

    /// What the Statistics screen shows, read off the caller's thread's way: the index brought
    /// up to date with the journals of `directory` (a damaged index is built again: `onWarning`
    /// says so), every player's name, and `player`'s figures (nil: no match of theirs).
    public struct Read: Sendable, Equatable {
        public var players: [String]
        public var figures: PlayerStatistics?
        /// Readable matches that started, anyone's.
        public var matches: Int
    }

    /// Reads the index of `directory` (none there: no matches) and computes `player`'s figures.
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

    /// The middle of `sorted` values (the mean of the two middle ones for an even count).
    static func median(_ sorted: [UInt64]) -> UInt64? {
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
