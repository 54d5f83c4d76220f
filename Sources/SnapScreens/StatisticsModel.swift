import SnapStatistics
import SnapTable

/// The Statistics screen: one player's record over the matches hosted on this computer (the
/// match index beside the journals, as `snapcards stats`): matches and rounds won over time, the
/// record against each opponent, the longest winning streaks, and how fast their correct
/// Snap! calls were (a histogram, the median and best, the median of each of the last
/// matches). ← and → (or the arrow buttons) go round the players, each read again; Back or
/// Esc goes back where the screen was opened from.
///
/// The index is read off the window's thread: the model asks for a reading as an effect
/// (`.readStatistics(player:)`) and its outcome comes back as an intent (`.read`, `.readingFailed`).
/// The layout and the words it draws are here too, as pure functions of the figures.
public struct StatisticsModel: Equatable, Sendable {
    public enum Intent: Equatable, Sendable {
        /// The screen opens: the player's figures are asked for.
        case open
        /// ← or the < button: the player before; → or >: the one after.
        case previous, next
        /// Back or Esc.
        case back
        /// A reading of `player`'s figures came in, with what the index warned of on the way
        /// (damaged and built again, kept in memory).
        case read(player: String, PlayerStatistics.Read, warnings: [String])
        /// A reading of `player`'s figures failed, and why in words.
        case readingFailed(player: String, why: String, warnings: [String])
    }

    public enum State: Equatable, Sendable {
        case reading
        case failed(String)
        case read(PlayerStatistics.Read)
    }

    /// Where Back goes.
    public enum Opener: Equatable, Sendable {
        /// The main menu (the menu's Statistics, `snapcards stats --window`).
        case menu
        /// The screen this one was opened over, which the scene keeps (a table whose round is over).
        case scene
    }

    public private(set) var player: String
    public private(set) var state = State.reading
    /// What the index said on the way to the figures shown.
    public private(set) var warnings: [String] = []
    public let opener: Opener
    public private(set) var now: Double

    public init(player: String, opener: Opener = .menu, now: Double) {
        self.player = player
        self.opener = opener
        self.now = now
    }

    public mutating func handle(_ intent: Intent, now: Double) -> [ScreenEffect] {
        self.now = now
        switch intent {
        case .open:
            return startReading()
        case .back:
            switch opener {
            case .menu: return [.show(.menu)]
            case .scene: return [.returnToOpener]
            }
        case .previous, .next:
            guard case .read(let read) = state,
                  let other = Self.neighbour(of: player, in: read.players, forward: intent == .next) else { return [] }
            player = other
            return startReading()
        case .read(let whose, let read, let warnings):
            guard whose == player, state == .reading else { break }  // a reading no longer waited for
            state = .read(read)
            self.warnings = warnings
        case .readingFailed(let whose, let why, let warnings):
            guard whose == player, state == .reading else { break }
            state = .failed(why)
            self.warnings = warnings
        }
        return []
    }

    /// Time passes: the dots of "Reading your matches…" turn.
    public mutating func update(now: Double) -> [ScreenEffect] {
        self.now = now
        return []
    }

    /// The last reading's warnings stay on show until the next one's come in.
    private mutating func startReading() -> [ScreenEffect] {
        state = .reading
        return [.readStatistics(player: player)]
    }

    /// True once the figures (or why there are none) are shown.
    public var isSettled: Bool { state != .reading }

    /// The figures of a player are shown (not an empty history, nor an error).
    public var hasFigures: Bool { if case .read(let read) = state { read.figures != nil } else { false } }

    /// The dots of "Reading your matches…" turn while the index is read.
    public var isAnimating: Bool { !isSettled }

    /// Everyone in the index, once read.
    public var players: [String] { if case .read(let read) = state { read.players } else { [] } }

    /// ← and → lead somewhere: someone else is in the index.
    public var canPick: Bool {
        let players = players
        return players.count > 1 || (players.count == 1 && players[0] != player)
    }

    public var footer: String { canPick ? "← →  another player     Esc  back" : "Esc  back" }

    /// "Reading your matches." with one to three dots, turning three times a second.
    public var readingLine: String { "Reading your matches" + String(repeating: ".", count: 1 + Int(now * 3) % 3) }

    /// The first warning, in words (one line at the bottom).
    public var warningLine: String? { warnings.first.map(Self.warningText) }

    /// Every text the screen shows (its words, no drawing): what the scene's `onShown` reports.
    public var texts: [String] {
        var texts = [player] + warnings.map(Self.warningText)
        switch state {
        case .reading: texts.append("Reading your matches…")
        case .failed(let why): texts.append(Self.failedText(why))
        case .read(let read):
            guard let figures = read.figures else {
                texts.append(Self.emptyText(read, player: player))
                break
            }
            texts += [Self.summaryLine(figures), Self.reactionLine(figures), Self.callsLine(figures)]
            texts += figures.reaction.histogram.map { "\(Self.bucketLabel($0)) s: \($0.calls)" }
            texts += Self.opponentRows(figures, limit: Self.opponentRowLimit).map { "\($0.name) \($0.record)" }
        }
        return texts
    }

    /// The next (or previous) name after `player` in `players`, round the end; the first
    /// (or last) when `player` is not among them; nil when there is no one else.
    public static func neighbour(of player: String, in players: [String], forward: Bool) -> String? {
        guard !players.isEmpty else { return nil }
        guard let index = players.firstIndex(of: player) else { return forward ? players.first : players.last }
        let next = (index + (forward ? 1 : players.count - 1)) % players.count
        return players[next] == player ? nil : players[next]
    }

    // MARK: - Layout

    public static let pickerCenter = Point(512, 96)
    public static let winsPanel = Rect(x: 32, y: 156, width: 468, height: 262)
    public static let reactionPanel = Rect(x: 524, y: 156, width: 468, height: 262)
    public static let opponentsPanel = Rect(x: 32, y: 430, width: 468, height: 222)
    public static let trendPanel = Rect(x: 524, y: 430, width: 468, height: 222)
    /// The rows of the record against each opponent that fit its panel.
    public static let opponentRowLimit = 6

    /// Where a panel's chart is drawn: below its heading, above its labels and legend.
    public static func chartArea(_ panel: Rect) -> Rect {
        Rect(x: panel.x + 44, y: panel.y + 44, width: panel.width - 64, height: panel.height - 96)
    }

    /// Where the reaction histogram's bars stand.
    public static var histogramArea: Rect {
        let panel = reactionPanel
        return Rect(x: panel.x + 20, y: panel.y + 74, width: panel.width - 40, height: panel.height - 126)
    }

    /// Where the trend's bars stand.
    public static var trendArea: Rect {
        let panel = trendPanel
        return Rect(x: panel.x + 20, y: panel.y + 78, width: panel.width - 40, height: panel.height - 118)
    }

    /// A running total drawn as columns (an area chart): one column per point of width, each
    /// as tall as the last value that falls in it, `top` filling `area`'s height. Thousands of
    /// matches make no more columns than the area has points.
    public static func columns(_ values: [Int], top: Int, in area: Rect) -> [Rect] {
        guard !values.isEmpty, top > 0 else { return [] }
        let count = min(values.count, max(1, Int(area.width)))
        let width = area.width / Double(count)
        return (0..<count).compactMap { column in
            // The last value of the matches that fall in this column.
            let index = min(values.count - 1, ((column + 1) * values.count + count - 1) / count - 1)
            let height = (area.height * Double(values[index]) / Double(top)).rounded()
            guard height > 0 else { return nil }
            // Whole points, each column starting where the last ended: no seam between them when scaled.
            let left = (area.x + Double(column) * width).rounded(), right = (area.x + Double(column + 1) * width).rounded()
            return Rect(x: left, y: area.y + area.height - height, width: right - left, height: height)
        }
    }

    /// The wins-over-time chart: rounds won behind, matches won in front (a match won needs a
    /// round won, so the front never hides the back), the top (rounds won in all) filling
    /// `area`. Nil when the player sat in no match; `top` 0 (no column) when they won no round yet.
    public static func winsChart(_ figures: PlayerStatistics, in area: Rect) -> (top: Int, rounds: [Rect], matches: [Rect])? {
        guard let top = figures.progress.last?.roundsWon else { return nil }
        return (top, columns(figures.progress.map(\.roundsWon), top: top, in: area),
                columns(figures.progress.map(\.matchesWon), top: top, in: area))
    }

    public struct Bar: Equatable, Sendable {
        public var rect: Rect
        public var label: String
        public var count: String
    }

    /// The histogram's bars, side by side across `area`, the fullest as tall as the area
    /// (an empty bucket a sliver on the axis); labelled with their range in seconds and their count.
    public static func histogramBars(_ buckets: [PlayerStatistics.Bucket], in area: Rect) -> [Bar] {
        guard !buckets.isEmpty else { return [] }
        let most = max(1, buckets.map(\.calls).max() ?? 0)
        let slot = area.width / Double(buckets.count)
        return buckets.enumerated().map { index, bucket in
            let height = max(1, (area.height * Double(bucket.calls) / Double(most)).rounded())
            let rect = Rect(x: (area.x + Double(index) * slot + 4).rounded(), y: area.y + area.height - height,
                            width: (slot - 8).rounded(), height: height)
            return Bar(rect: rect, label: bucketLabel(bucket), count: "\(bucket.calls)")
        }
    }

    /// A bucket's range in seconds, short enough for its bar: "0.25–0.5", "2+".
    public static func bucketLabel(_ bucket: PlayerStatistics.Bucket) -> String {
        bucket.toMillis.map { "\(seconds(bucket.fromMillis))–\(seconds($0))" } ?? "\(seconds(bucket.fromMillis))+"
    }

    /// Milliseconds as seconds to two places, without trailing zeros: 250 → "0.25", 1000 → "1".
    static func seconds(_ millis: Int) -> String {
        let hundredths = (millis + 5) / 10
        var text = "\(hundredths / 100)." + (hundredths % 100 < 10 ? "0" : "") + "\(hundredths % 100)"
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    public struct TrendBar: Equatable, Sendable {
        /// None for a match without a timed call.
        public var rect: Rect?
        public var center: Double
        public var label: String
    }

    /// The trend's bars, oldest first: each match's median reaction (the slowest the tallest);
    /// a match without a timed call has none (`rect` nil) at `center`.
    public static func trendBars(_ trend: [PlayerStatistics.TrendPoint], in area: Rect) -> [TrendBar] {
        guard !trend.isEmpty else { return [] }
        let slowest = max(1, trend.compactMap(\.medianMicros).max() ?? 0)
        let slot = area.width / Double(trend.count)
        return trend.enumerated().map { index, point in
            let center = area.x + slot * (Double(index) + 0.5)
            guard let median = point.medianMicros else { return TrendBar(rect: nil, center: center, label: "—") }
            let height = max(2, (area.height * Double(median) / Double(slowest)).rounded())
            let width = min(36, slot - 6)
            return TrendBar(rect: Rect(x: (center - width / 2).rounded(), y: area.y + area.height - height, width: width.rounded(), height: height),
                            center: center, label: "\((median + 500) / 1_000)")
        }
    }

    /// The opponents met most first (then by name), at most `limit` rows, the last one saying
    /// how many more there are when they do not all fit.
    public static func opponentRows(_ figures: PlayerStatistics, limit: Int) -> [(name: String, record: String)] {
        let sorted = figures.opponents.sorted { ($1.matches, $0.name) < ($0.matches, $1.name) }
        var rows = sorted.prefix(sorted.count > limit ? limit - 1 : limit).map { opponent in
            (name: opponent.name, record: "matches \(opponent.won)–\(opponent.lost) of \(opponent.matches) · "
                + "rounds \(opponent.roundsWon)–\(opponent.roundsLost)")
        }
        if sorted.count > limit { rows.append((name: "and \(sorted.count - (limit - 1)) more", record: "")) }
        return rows
    }

    /// The first and the last match's day, "2026-01-31" (UTC, as `snapcards history`).
    public static func dateRange(_ progress: [PlayerStatistics.ProgressPoint]) -> (String, String) {
        guard let first = progress.first, let last = progress.last else { return ("", "") }
        return (day(first.startedAt), day(last.startedAt))
    }

    /// The UTC day of `seconds` since 1970, "2026-01-31" (the proleptic Gregorian calendar,
    /// from the count of days: no clock, no time zone).
    static func day(_ seconds: UInt64) -> String {
        let days = Int(clamping: seconds / 86_400) + 719_468  // from 0000-03-01
        let era = days / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153  // March is 0
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = "\(value)"
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    // MARK: - Words

    static func count(_ value: Int, _ one: String, _ many: String) -> String { "\(value) \(value == 1 ? one : many)" }

    static func millis(_ micros: UInt64) -> String { "\((micros + 500) / 1_000) ms" }

    /// "12 matches, 5 won · 30 rounds, 14 won · longest winning streak 3 matches, 5 rounds".
    public static func summaryLine(_ figures: PlayerStatistics) -> String {
        "\(count(figures.matchesPlayed, "match", "matches")), \(figures.matchesWon) won · "
            + "\(count(figures.roundsPlayed, "round", "rounds")), \(figures.roundsWon) won · "
            + "longest winning streak \(count(figures.longestMatchStreak, "match", "matches")), "
            + count(figures.longestRoundStreak, "round", "rounds")
    }

    /// "Median 412 ms · best 188 ms · 37 calls", or that there is none yet.
    public static func reactionLine(_ figures: PlayerStatistics) -> String {
        guard let median = figures.reaction.medianMicros, let best = figures.reaction.bestMicros else {
            return "No correct call timed yet"
        }
        return "Median \(millis(median)) · best \(millis(best)) · \(count(figures.reaction.calls, "call", "calls"))"
    }

    /// "Snap! calls: 37 right, 4 wrong, 2 too late".
    public static func callsLine(_ figures: PlayerStatistics) -> String {
        "Snap! calls: \(figures.snapsRight) right, \(figures.snapsWrong) wrong, \(figures.snapsTooLate) too late"
    }

    /// The four panels and their headings, as drawn.
    public static func panels(_ figures: PlayerStatistics) -> [(rect: Rect, heading: String)] {
        [(winsPanel, "Wins over time"), (reactionPanel, "Reaction time of correct Snap! calls"),
         (opponentsPanel, "Against each opponent"),
         (trendPanel, "Median reaction in ms, last \(count(figures.trend.count, "match", "matches"))")]
    }

    /// The wins chart's legend: "rounds won (14)", "matches won (5)".
    public static func legend(_ figures: PlayerStatistics) -> (rounds: String, matches: String) {
        ("rounds won (\(figures.roundsWon))", "matches won (\(figures.matchesWon))")
    }

    /// What the screen says when `player` has no figures.
    public static func emptyText(_ read: PlayerStatistics.Read, player: String) -> String {
        if read.players.isEmpty {
            return "No matches on this computer yet. Host a game or play Single Player: every match hosted here counts."
        }
        return "\(player) has played no match hosted on this computer. Press → to see "
            + (read.players.count == 1 ? read.players[0] : "the \(read.players.count) players who have") + "."
    }

    public static func failedText(_ why: String) -> String {
        "Your matches could not be read: \(why). The journals are untouched; `snapcards history --reindex` builds the index again."
    }

    public static func warningText(_ warning: String) -> String {
        warning.contains("damaged") ? "The match index was damaged; it was built again from the journals." : "Note: \(warning)"
    }
}
