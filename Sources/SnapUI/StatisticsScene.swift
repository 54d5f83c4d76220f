#if GUI
import Glibc
import NIOConcurrencyHelpers
import SnapHistory
import SnapMatchFiles
import SnapNet
import SnapTable

/// One reading of the match index for the Statistics screen, in a task of its own (the
/// index waits for the disk and for SQLite's locks; the window's thread never does): what the
/// index warns of on the way, then the figures, handed to the window through its inbox.
final class StatisticsReading: Sendable {
    private enum Message: Sendable {
        case warning(String)
        case read(Result<PlayerStatistics.Read, Error>)
    }

    private let inbox = WindowInbox<Message>()

    init(directory: String, player: String, trendMatches: Int) {
        Task { [inbox] in
            let result: Result<PlayerStatistics.Read, Error>
            do {
                result = .success(try await PlayerStatistics.read(directory: directory, player: player, trendMatches: trendMatches) {
                    inbox.post(.warning($0))
                })
            } catch {
                result = .failure(error)
            }
            inbox.post(.read(result))
        }
    }

    /// The outcome once there is one, and what the index warned of on the way.
    var result: (Result<PlayerStatistics.Read, Error>, warnings: [String])? {
        var warnings: [String] = []
        for message in inbox.pending {
            switch message {
            case .warning(let warning): warnings.append(warning)
            case .read(let result): return (result, warnings)
            }
        }
        return nil
    }
}

/// The Statistics screen: one player's record over the matches hosted on this computer (the
/// match index beside the journals, as `snapcards stats`): matches and rounds won over time, the
/// record against each opponent, the longest winning streaks, and how fast their correct
/// Snap! calls were (a histogram, the median and best, the median of each of the last
/// matches). ← and → (or the arrow buttons) pick another player; Back or Esc leaves.
public final class StatisticsScene: Scene {
    enum Action: Hashable { case previous, next, back }

    enum State {
        case reading
        case failed(String)
        case read(PlayerStatistics.Read)
    }

    private let directory: String
    private let trendMatches: Int
    /// Where Back goes: the scene this one was opened from, or a new menu.
    private let backTo: Scene?
    private(set) var player: String
    private(set) var state = State.reading
    /// What the index said on the way (damaged and built again, or kept in memory).
    private(set) var warnings: [String] = []
    private var reading: StatisticsReading?
    private var buttons = ButtonSet<Action>()
    private var now = 0.0
    /// Told each text the screen shows once the figures are in (or why not): tests read it.
    var onShown: (([String]) -> Void)?

    /// `player`: whose figures (default: the saved name); `directory`: the journals'
    /// (default: this computer's); `back`: the scene to return to (default: the menu).
    public init(app: App, player: String? = nil, directory: String = MatchJournal.directory(), trendMatches: Int = 10,
                back: Scene? = nil) {
        self.directory = directory
        self.trendMatches = trendMatches
        self.player = player ?? Settings.load().name
        backTo = back
        now = app.now
        buttons.add(.previous, Button("<", center: Point(Self.pickerCenter.x - 250, Self.pickerCenter.y), width: 56))
        buttons.add(.next, Button(">", center: Point(Self.pickerCenter.x + 250, Self.pickerCenter.y), width: 56))
        buttons.add(.back, Button("Back", center: Point(512, 706), width: 150))
        startReading()
    }

    private func startReading() {
        state = .reading
        reading = StatisticsReading(directory: directory, player: player, trendMatches: trendMatches)
    }

    /// True once the figures (or why there are none) are shown.
    package var isSettled: Bool { if case .reading = state { false } else { true } }

    /// The figures of a player are shown (not an empty history, nor an error).
    package var hasFigures: Bool { if case .read(let read) = state { read.figures != nil } else { false } }

    public var isAnimating: Bool { !isSettled }  // the dots of "Reading your matches…"
    public var title: String { "Snap! — Statistics" }

    public func update(now: Double, app: App) -> SceneChange? {
        self.now = now
        guard let reading, let (result, warnings) = reading.result else { return nil }
        self.reading = nil
        self.warnings = warnings
        switch result {
        case .success(let read): state = .read(read)
        case .failure(let error): state = .failed("\(error)")
        }
        app.setNeedsRedraw()
        onShown?(Self.texts(state, player: player, warnings: warnings, trendMatches: trendMatches))
        return nil
    }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        switch input {
        case .press(let point):
            buttons.press(point)
            app.setNeedsRedraw()
        case .release(let point):
            app.setNeedsRedraw()
            if let action = buttons.release(point) { return perform(action, app: app) }
        case .key(.escape):
            return perform(.back, app: app)
        case .key(.left):
            return perform(.previous, app: app)
        case .key(.right):
            return perform(.next, app: app)
        default:
            break
        }
        return nil
    }

    private func perform(_ action: Action, app: App) -> SceneChange? {
        switch action {
        case .back:
            return .show(backTo ?? app.menu())
        case .previous, .next:
            guard case .read(let read) = state,
                  let other = Self.neighbour(of: player, in: read.players, forward: action == .next) else { return nil }
            player = other
            startReading()
            app.setNeedsRedraw()
            return nil
        }
    }

    // MARK: - Drawing

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        MenuKit.heading(graphics, "Statistics", y: 12)
        let players: [String]
        if case .read(let read) = state { players = read.players } else { players = [] }
        let canPick = players.count > 1 || (players.count == 1 && players[0] != player)
        buttons.hidden = canPick ? [] : [.previous, .next]
        graphics.text(graphics.fitted(player, width: 420, size: 26, bold: true), at: Point(Self.pickerCenter.x, Self.pickerCenter.y - 17),
                      size: 26, bold: true, color: .white)
        switch state {
        case .reading:
            let dots = String(repeating: ".", count: 1 + Int(now * 3) % 3)
            graphics.text("Reading your matches\(dots)", at: Point(512, 340), size: 24, bold: true, color: .gold)
        case .failed(let why):
            MenuKit.paragraph(graphics, Self.failedText(why), at: Point(512, 300), width: 760, size: 18,
                              color: MenuKit.errorColor, maxLines: 5)
        case .read(let read):
            if let figures = read.figures {
                drawFigures(figures, graphics)
            } else {
                MenuKit.paragraph(graphics, Self.emptyText(read, player: player), at: Point(512, 300), width: 760, size: 20,
                                  color: MenuKit.hintColor, maxLines: 4)
            }
        }
        if let warning = warnings.first {
            graphics.text(graphics.fitted(Self.warningText(warning), width: 900, size: 13), at: Point(512, 672), size: 13,
                          color: MenuKit.errorColor)
        }
        buttons.draw(graphics, app.assets)
        MenuKit.footer(graphics, canPick ? "← →  another player     Esc  back" : "Esc  back")
    }

    private func drawFigures(_ figures: PlayerStatistics, _ graphics: Graphics) {
        graphics.text(Self.summaryLine(figures), at: Point(512, 128), size: 16, color: MenuKit.hintColor)
        for (rect, heading) in [(Self.winsPanel, "Wins over time"), (Self.reactionPanel, "Reaction time of correct Snap! calls"),
                                (Self.opponentsPanel, "Against each opponent"),
                                (Self.trendPanel, "Median reaction in ms, last \(Self.count(figures.trend.count, "match", "matches"))")] {
            MenuKit.panel(graphics, rect)
            graphics.text(heading, at: Point(rect.x + 14, rect.y + 8), size: 17, bold: true, color: MenuKit.labelColor, align: .left)
        }
        drawWins(figures, graphics)
        drawReaction(figures, graphics)
        drawOpponents(figures, graphics)
        drawTrend(figures, graphics)
    }

    private static let roundsColor = Color(120, 190, 255)
    private static let matchesColor = Color.gold
    private static let barColor = Color(120, 220, 150)
    private static let axisColor = Color(255, 255, 255, 90)

    private func drawWins(_ figures: PlayerStatistics, _ graphics: Graphics) {
        let area = Self.chartArea(Self.winsPanel)
        guard !figures.progress.isEmpty else { return }
        let top = figures.progress.last!.roundsWon
        guard top > 0 else {
            graphics.text("No round won yet", at: Point(area.center.x, area.center.y - 10), size: 16, color: MenuKit.hintColor)
            return
        }
        // Rounds won behind, matches won in front: a match won needs a round won, so the gold never hides the blue.
        // Each column reaches a point into the next: the renderer's scaling rounds each rect's
        // edges on its own, which left hairline seams between abutting ones (opaque colours: no overlap shows).
        for (values, color) in [(figures.progress.map(\.roundsWon), Self.roundsColor), (figures.progress.map(\.matchesWon), Self.matchesColor)] {
            let columns = Self.columns(values, top: top, in: area)
            for (index, column) in columns.enumerated() {
                var drawn = column
                if index + 1 < columns.count, columns[index + 1].x == column.x + column.width { drawn.width += 1 }
                graphics.fill(drawn, color)
            }
        }
        graphics.fill(Rect(x: area.x, y: area.y + area.height, width: area.width, height: 1), Self.axisColor)
        graphics.text("\(top)", at: Point(area.x - 6, area.y - 8), size: 13, color: MenuKit.hintColor, align: .right)
        graphics.text("0", at: Point(area.x - 6, area.y + area.height - 8), size: 13, color: MenuKit.hintColor, align: .right)
        let (first, last) = Self.dateRange(figures.progress)
        graphics.text(first, at: Point(area.x, area.y + area.height + 4), size: 13, color: MenuKit.hintColor, align: .left)
        graphics.text(last, at: Point(area.x + area.width, area.y + area.height + 4), size: 13, color: MenuKit.hintColor, align: .right)
        let legendY = Self.winsPanel.y + Self.winsPanel.height - 26
        graphics.fill(Rect(x: area.x, y: legendY + 4, width: 12, height: 12), Self.roundsColor)
        graphics.text("rounds won (\(figures.roundsWon))", at: Point(area.x + 18, legendY), size: 14, color: .white, align: .left)
        graphics.fill(Rect(x: area.x + 210, y: legendY + 4, width: 12, height: 12), Self.matchesColor)
        graphics.text("matches won (\(figures.matchesWon))", at: Point(area.x + 228, legendY), size: 14, color: .white, align: .left)
    }

    private func drawReaction(_ figures: PlayerStatistics, _ graphics: Graphics) {
        let panel = Self.reactionPanel
        graphics.text(Self.reactionLine(figures), at: Point(panel.x + 14, panel.y + 34), size: 15, color: .white, align: .left)
        guard figures.reaction.calls > 0 else { return }
        let area = Rect(x: panel.x + 20, y: panel.y + 74, width: panel.width - 40, height: panel.height - 126)
        for bar in Self.histogramBars(figures.reaction.histogram, in: area) {
            graphics.fill(bar.rect, Self.barColor)
            graphics.text(bar.count, at: Point(bar.rect.center.x, bar.rect.y - 18), size: 13, color: .white)
            graphics.text(bar.label, at: Point(bar.rect.center.x, area.y + area.height + 4), size: 12, color: MenuKit.hintColor)
        }
        graphics.fill(Rect(x: area.x, y: area.y + area.height, width: area.width, height: 1), Self.axisColor)
        graphics.text("seconds from the card to the call", at: Point(area.x + area.width / 2, area.y + area.height + 22), size: 12,
                      color: MenuKit.hintColor)
    }

    private func drawOpponents(_ figures: PlayerStatistics, _ graphics: Graphics) {
        let panel = Self.opponentsPanel
        let rows = Self.opponentRows(figures, limit: 6)
        if rows.isEmpty {
            graphics.text("No one yet", at: Point(panel.x + 14, panel.y + 40), size: 15, color: MenuKit.hintColor, align: .left)
        }
        for (index, row) in rows.enumerated() {
            let y = panel.y + 38 + Double(index) * 26
            graphics.text(graphics.fitted(row.name, width: 170, size: 15, bold: true), at: Point(panel.x + 14, y), size: 15,
                          bold: true, color: .white, align: .left)
            graphics.text(row.record, at: Point(panel.x + panel.width - 14, y), size: 15, color: MenuKit.hintColor, align: .right)
        }
    }

    private func drawTrend(_ figures: PlayerStatistics, _ graphics: Graphics) {
        let panel = Self.trendPanel
        graphics.text(Self.callsLine(figures), at: Point(panel.x + 14, panel.y + 34), size: 15, color: .white, align: .left)
        let area = Rect(x: panel.x + 20, y: panel.y + 78, width: panel.width - 40, height: panel.height - 118)
        let bars = Self.trendBars(figures.trend, in: area)
        if bars.allSatisfy({ $0.rect == nil }) {
            graphics.text("No correct call timed yet", at: Point(panel.x + 14, panel.y + 80), size: 15, color: MenuKit.hintColor, align: .left)
            return
        }
        for bar in bars {
            if let rect = bar.rect {
                graphics.fill(rect, Self.barColor)
                graphics.text(bar.label, at: Point(rect.center.x, rect.y - 17), size: 12, color: .white)
            } else {
                graphics.text("—", at: Point(bar.center, area.y + area.height - 18), size: 12, color: MenuKit.hintColor)
            }
        }
        graphics.fill(Rect(x: area.x, y: area.y + area.height, width: area.width, height: 1), Self.axisColor)
        graphics.text("oldest", at: Point(area.x, area.y + area.height + 4), size: 12, color: MenuKit.hintColor, align: .left)
        graphics.text("newest", at: Point(area.x + area.width, area.y + area.height + 4), size: 12, color: MenuKit.hintColor, align: .right)
    }

    // MARK: - Layout and words (pure: tests call them)

    static let pickerCenter = Point(512, 96)
    static let winsPanel = Rect(x: 32, y: 156, width: 468, height: 262)
    static let reactionPanel = Rect(x: 524, y: 156, width: 468, height: 262)
    static let opponentsPanel = Rect(x: 32, y: 430, width: 468, height: 222)
    static let trendPanel = Rect(x: 524, y: 430, width: 468, height: 222)

    /// Where a panel's chart is drawn: below its heading, above its labels and legend.
    static func chartArea(_ panel: Rect) -> Rect {
        Rect(x: panel.x + 44, y: panel.y + 44, width: panel.width - 64, height: panel.height - 96)
    }

    /// A running total drawn as columns (an area chart): one column per point of width, each
    /// as tall as the last value that falls in it, `top` filling `area`'s height. Thousands of
    /// matches make no more columns than the area has points.
    static func columns(_ values: [Int], top: Int, in area: Rect) -> [Rect] {
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

    struct Bar: Equatable {
        var rect: Rect
        var label: String
        var count: String
    }

    /// The histogram's bars, side by side across `area`, the fullest as tall as the area
    /// (an empty bucket a sliver on the axis); labelled with their range in ms and their count.
    static func histogramBars(_ buckets: [PlayerStatistics.Bucket], in area: Rect) -> [Bar] {
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
    static func bucketLabel(_ bucket: PlayerStatistics.Bucket) -> String {
        func seconds(_ millis: Int) -> String {
            var text = String(printf: "%.2f", Double(millis) / 1_000)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text
        }
        return bucket.toMillis.map { "\(seconds(bucket.fromMillis))–\(seconds($0))" } ?? "\(seconds(bucket.fromMillis))+"
    }

    /// The trend's bars, oldest first: each match's median reaction (the slowest the tallest);
    /// a match without a timed call has none (`rect` nil) at `center`.
    static func trendBars(_ trend: [PlayerStatistics.TrendPoint], in area: Rect) -> [(rect: Rect?, center: Double, label: String)] {
        guard !trend.isEmpty else { return [] }
        let slowest = max(1, trend.compactMap(\.medianMicros).max() ?? 0)
        let slot = area.width / Double(trend.count)
        return trend.enumerated().map { index, point in
            let center = area.x + slot * (Double(index) + 0.5)
            guard let median = point.medianMicros else { return (nil, center, "—") }
            let height = max(2, (area.height * Double(median) / Double(slowest)).rounded())
            let width = min(36, slot - 6)
            return (Rect(x: (center - width / 2).rounded(), y: area.y + area.height - height, width: width.rounded(), height: height),
                    center, "\((median + 500) / 1_000)")
        }
    }

    /// The first and the last match's day, "2026-01-31" (UTC, as `snapcards history`).
    static func dateRange(_ progress: [PlayerStatistics.ProgressPoint]) -> (String, String) {
        func day(_ startedAt: UInt64) -> String {
            var seconds = time_t(clamping: startedAt)
            var parts = tm()
            gmtime_r(&seconds, &parts)
            return String(printf: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
        }
        guard let first = progress.first, let last = progress.last else { return ("", "") }
        return (day(first.startedAt), day(last.startedAt))
    }

    static func count(_ value: Int, _ one: String, _ many: String) -> String { "\(value) \(value == 1 ? one : many)" }

    static func millis(_ micros: UInt64) -> String { "\((micros + 500) / 1_000) ms" }

    /// "12 matches, 5 won · 30 rounds, 14 won · longest winning streak 3 matches, 5 rounds".
    static func summaryLine(_ figures: PlayerStatistics) -> String {
        "\(count(figures.matchesPlayed, "match", "matches")), \(figures.matchesWon) won · "
            + "\(count(figures.roundsPlayed, "round", "rounds")), \(figures.roundsWon) won · "
            + "longest winning streak \(count(figures.longestMatchStreak, "match", "matches")), "
            + count(figures.longestRoundStreak, "round", "rounds")
    }

    /// "Median 412 ms · best 188 ms · 37 calls", or that there is none yet.
    static func reactionLine(_ figures: PlayerStatistics) -> String {
        guard let median = figures.reaction.medianMicros, let best = figures.reaction.bestMicros else {
            return "No correct call timed yet"
        }
        return "Median \(millis(median)) · best \(millis(best)) · \(count(figures.reaction.calls, "call", "calls"))"
    }

    /// "Snap! calls: 37 right, 4 wrong, 2 too late".
    static func callsLine(_ figures: PlayerStatistics) -> String {
        "Snap! calls: \(figures.snapsRight) right, \(figures.snapsWrong) wrong, \(figures.snapsTooLate) too late"
    }

    /// The opponents met most first (then by name), at most `limit` rows, the last one saying
    /// how many more there are when they do not all fit.
    static func opponentRows(_ figures: PlayerStatistics, limit: Int) -> [(name: String, record: String)] {
        let sorted = figures.opponents.sorted { ($1.matches, $0.name) < ($0.matches, $1.name) }
        var rows = sorted.prefix(sorted.count > limit ? limit - 1 : limit).map { opponent in
            (name: opponent.name, record: "matches \(opponent.won)–\(opponent.lost) of \(opponent.matches) · "
                + "rounds \(opponent.roundsWon)–\(opponent.roundsLost)")
        }
        if sorted.count > limit { rows.append((name: "and \(sorted.count - (limit - 1)) more", record: "")) }
        return rows
    }

    /// The next (or previous) name after `player` in `players`, round the end; the first
    /// (or last) when `player` is not among them.
    static func neighbour(of player: String, in players: [String], forward: Bool) -> String? {
        guard !players.isEmpty else { return nil }
        guard let index = players.firstIndex(of: player) else { return forward ? players.first : players.last }
        let next = (index + (forward ? 1 : players.count - 1)) % players.count
        return players[next] == player ? nil : players[next]
    }

    /// What the screen says when `player` has no figures.
    static func emptyText(_ read: PlayerStatistics.Read, player: String) -> String {
        if read.players.isEmpty {
            return "No matches on this computer yet. Host a game or play Single Player: every match hosted here counts."
        }
        return "\(player) has played no match hosted on this computer. Press → to see "
            + (read.players.count == 1 ? read.players[0] : "the \(read.players.count) players who have") + "."
    }

    static func failedText(_ why: String) -> String {
        "Your matches could not be read: \(why). The journals are untouched; `snapcards history --reindex` builds the index again."
    }

    static func warningText(_ warning: String) -> String {
        warning.contains("damaged") ? "The match index was damaged; it was built again from the journals." : "Note: \(warning)"
    }

    /// Every text the screen shows for `state` (its words, no drawing): what `onShown` reports.
    static func texts(_ state: State, player: String, warnings: [String], trendMatches: Int) -> [String] {
        var texts = [player] + warnings.map(warningText)
        switch state {
        case .reading: texts.append("Reading your matches…")
        case .failed(let why): texts.append(failedText(why))
        case .read(let read):
            guard let figures = read.figures else {
                texts.append(emptyText(read, player: player))
                break
            }
            texts += [summaryLine(figures), reactionLine(figures), callsLine(figures)]
            texts += figures.reaction.histogram.map { "\(bucketLabel($0)) s: \($0.calls)" }
            texts += opponentRows(figures, limit: 6).map { "\($0.name) \($0.record)" }
        }
        return texts
    }
}
#endif
