/// One player's figures over every match in the index: what `snapcards stats` prints and the
/// Statistics screen draws. Values only, linking nothing: SnapHistory computes them from the
/// match index (`PlayerStatistics.compute`, `read`), and the screens' models take them as
/// they are, without linking the index's SQLite and NIO.
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
    public var reaction = Reaction()
    /// The last matches the player sat in (oldest first): each one's correct calls.
    public var trend: [TrendPoint] = []
    /// Everyone the player shared a table with, by name.
    public var opponents: [Opponent] = []
    /// Each match the player sat in, oldest first, with the running totals after it: the
    /// Statistics screen's chart of wins over time. Not in `snapcards stats --json` (a point a match).
    public var progress: [ProgressPoint] = []

    public init(player: String) {
        self.player = player
    }

    private enum CodingKeys: String, CodingKey {
        case player, matchesPlayed, matchesWon, roundsPlayed, roundsWon, longestMatchStreak, longestRoundStreak
        case snapsRight, snapsWrong, snapsTooLate, reaction, trend, opponents
    }

    public struct ProgressPoint: Sendable, Equatable {
        /// When the match started, in seconds since 1970 (UTC).
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

        public init(calls: Int = 0, medianMicros: UInt64? = nil, bestMicros: UInt64? = nil, histogram: [Bucket] = []) {
            (self.calls, self.medianMicros, self.bestMicros, self.histogram) = (calls, medianMicros, bestMicros, histogram)
        }
    }

    /// Correct calls with a reaction of at least `fromMillis` and under `toMillis` (nil: no bound).
    public struct Bucket: Sendable, Equatable, Codable {
        public var fromMillis: Int
        public var toMillis: Int?
        public var calls: Int

        public init(fromMillis: Int, toMillis: Int?, calls: Int) {
            (self.fromMillis, self.toMillis, self.calls) = (fromMillis, toMillis, calls)
        }
    }

    /// One match of the trend: its journal, when it started, its correct calls and their
    /// median reaction (nil: none timed).
    public struct TrendPoint: Sendable, Equatable, Codable {
        public var journal: String
        public var startedAt: UInt64
        public var calls: Int
        public var medianMicros: UInt64?

        public init(journal: String, startedAt: UInt64, calls: Int, medianMicros: UInt64?) {
            (self.journal, self.startedAt, self.calls, self.medianMicros) = (journal, startedAt, calls, medianMicros)
        }
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

        public init(name: String, matches: Int = 0, won: Int = 0, lost: Int = 0, roundsWon: Int = 0, roundsLost: Int = 0) {
            (self.name, self.matches, self.won, self.lost, self.roundsWon, self.roundsLost) = (name, matches, won, lost, roundsWon, roundsLost)
        }
    }

    /// The histogram's edges, in milliseconds.
    public static let bucketEdges = [0, 250, 500, 750, 1_000, 1_500, 2_000]

    /// What the Statistics screen shows of one reading of the index: every player's name, and
    /// one player's figures (nil: no match of theirs).
    public struct Read: Sendable, Equatable {
        public var players: [String]
        public var figures: PlayerStatistics?
        /// Readable matches that started, anyone's.
        public var matches: Int

        public init(players: [String], figures: PlayerStatistics?, matches: Int) {
            (self.players, self.figures, self.matches) = (players, figures, matches)
        }
    }

    /// The middle of `sorted` values (the mean of the two middle ones for an even count).
    public static func median(_ sorted: [UInt64]) -> UInt64? {
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
