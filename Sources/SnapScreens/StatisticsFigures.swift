/// What the Statistics screen shows of one reading of the match index: every player's name,
/// and one player's figures (nil: no match of theirs). The same values as SnapHistory's
/// `PlayerStatistics.Read`, which the window reads off its thread and hands over: that module
/// keeps the index in SQLite over NIO, which this one must not link, so the screen takes
/// these plain copies (`StatisticsScene` makes them).
public struct StatisticsRead: Equatable, Sendable {
    public var players: [String]
    public var figures: StatisticsFigures?
    /// Readable matches that started, anyone's.
    public var matches: Int

    public init(players: [String], figures: StatisticsFigures?, matches: Int) {
        (self.players, self.figures, self.matches) = (players, figures, matches)
    }
}

/// One player's figures, as `PlayerStatistics` has them (its fields, without the journals' names).
public struct StatisticsFigures: Equatable, Sendable {
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
    /// The correct calls' reaction times.
    public var reaction = Reaction()
    /// The last matches the player sat in (oldest first): each one's correct calls.
    public var trend: [TrendPoint] = []
    /// Everyone the player shared a table with.
    public var opponents: [Opponent] = []
    /// Each match the player sat in, oldest first, with the running totals after it.
    public var progress: [ProgressPoint] = []

    public init(player: String) {
        self.player = player
    }

    public struct Reaction: Equatable, Sendable {
        public var calls: Int
        public var medianMicros: UInt64?
        public var bestMicros: UInt64?
        public var histogram: [Bucket]

        public init(calls: Int = 0, medianMicros: UInt64? = nil, bestMicros: UInt64? = nil, histogram: [Bucket] = []) {
            (self.calls, self.medianMicros, self.bestMicros, self.histogram) = (calls, medianMicros, bestMicros, histogram)
        }
    }

    /// Correct calls with a reaction of at least `fromMillis` and under `toMillis` (nil: no bound).
    public struct Bucket: Equatable, Sendable {
        public var fromMillis: Int
        public var toMillis: Int?
        public var calls: Int

        public init(fromMillis: Int, toMillis: Int?, calls: Int) {
            (self.fromMillis, self.toMillis, self.calls) = (fromMillis, toMillis, calls)
        }
    }

    /// One match of the trend: its correct calls and their median reaction (nil: none timed).
    public struct TrendPoint: Equatable, Sendable {
        public var calls: Int
        public var medianMicros: UInt64?

        public init(calls: Int, medianMicros: UInt64?) {
            (self.calls, self.medianMicros) = (calls, medianMicros)
        }
    }

    public struct Opponent: Equatable, Sendable {
        public var name: String
        /// Matches both sat in; of those, won by the player and by the opponent.
        public var matches: Int
        public var won: Int
        public var lost: Int
        /// Rounds of those matches won by the player and by the opponent.
        public var roundsWon: Int
        public var roundsLost: Int

        public init(name: String, matches: Int, won: Int, lost: Int, roundsWon: Int, roundsLost: Int) {
            (self.name, self.matches, self.won, self.lost, self.roundsWon, self.roundsLost) = (name, matches, won, lost, roundsWon, roundsLost)
        }
    }

    public struct ProgressPoint: Equatable, Sendable {
        /// When the match started, in seconds since 1970 (UTC).
        public var startedAt: UInt64
        /// Matches won and rounds won so far, this match included.
        public var matchesWon: Int
        public var roundsWon: Int

        public init(startedAt: UInt64, matchesWon: Int, roundsWon: Int) {
            (self.startedAt, self.matchesWon, self.roundsWon) = (startedAt, matchesWon, roundsWon)
        }
    }
}
