#if GUI
import SnapHistory
import SnapMatchFiles
import SnapScreens
import SnapStatistics
import SnapTable

/// One reading of the match index for the Statistics screen, in a task of its own (the
/// index waits for the disk and for SQLite's locks; the window's thread never does): what the
/// index warns of on the way, then the figures, handed to the window through its inbox.
final class StatisticsReading: Sendable {
    private enum Message: Sendable {
        case warning(String)
        case read(Result<PlayerStatistics.Read, Error>)
    }

    /// Whose figures.
    let player: String
    private let inbox = WindowInbox<Message>()

    init(directory: String, player: String, trendMatches: Int) {
        self.player = player
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

/// The Statistics screen, drawn: one player's record over the matches hosted on this computer.
/// Its rules, layout and words are `StatisticsModel`'s; this scene maps clicks and keys to the
/// model's intents, reads the index off the window's thread when the model asks
/// (`StatisticsReading`), hands the outcome back as an intent, and draws.
public final class StatisticsScene: Scene {
    typealias Model = StatisticsModel
    enum Action: Hashable { case previous, next, back }

    private let directory: String
    private let trendMatches: Int
    /// Where Back goes when the model says so: the scene this one was opened from (else the menu).
    private let opener: Scene?
    private(set) var model: StatisticsModel
    private var reading: StatisticsReading?
    private var buttons = ButtonSet<Action>()
    /// Told each text the screen shows once the figures are in (or why not): tests read it.
    var onShown: (([String]) -> Void)?

    /// `player`: whose figures (default: the saved name); `directory`: the journals'
    /// (default: this computer's); `back`: the scene to return to (default: the menu).
    public init(app: App, player: String? = nil, directory: String = MatchJournal.directory(), trendMatches: Int = 10,
                back: Scene? = nil) {
        self.directory = directory
        self.trendMatches = trendMatches
        opener = back
        model = StatisticsModel(player: player ?? app.settings.name, opener: back == nil ? .menu : .scene, now: app.now)
        buttons.add(.previous, Button("<", center: Point(Model.pickerCenter.x - 250, Model.pickerCenter.y), width: 56))
        buttons.add(.next, Button(">", center: Point(Model.pickerCenter.x + 250, Model.pickerCenter.y), width: 56))
        buttons.add(.back, Button("Back", center: Point(512, 706), width: 150))
        _ = send(.open, app: app)
    }

    var player: String { model.player }
    /// What the index said on the way (damaged and built again, or kept in memory).
    var warnings: [String] { model.warnings }
    /// True once the figures (or why there are none) are shown.
    package var isSettled: Bool { model.isSettled }
    /// The figures of a player are shown (not an empty history, nor an error).
    package var hasFigures: Bool { model.hasFigures }

    public var isAnimating: Bool { model.isAnimating }  // the dots of "Reading your matches…"
    public var title: String { "Snap! — Statistics" }

    public func update(now: Double, app: App) -> SceneChange? {
        _ = model.update(now: now)
        guard let reading, let (result, warnings) = reading.result else { return nil }
        self.reading = nil
        let change: SceneChange?
        switch result {
        case .success(let read): change = send(.read(player: reading.player, read, warnings: warnings), app: app)
        case .failure(let error): change = send(.readingFailed(player: reading.player, why: "\(error)", warnings: warnings), app: app)
        }
        app.setNeedsRedraw()
        onShown?(model.texts)
        return change
    }

    public func handle(_ input: Input, app: App) -> SceneChange? {
        switch input {
        case .press(let point):
            buttons.press(point)
            app.setNeedsRedraw()
        case .release(let point):
            app.setNeedsRedraw()
            if let action = buttons.release(point) { return send(Self.intent(action), app: app) }
        case .key(.escape):
            return send(.back, app: app)
        case .key(.left):
            return send(.previous, app: app)
        case .key(.right):
            return send(.next, app: app)
        default:
            break
        }
        return nil
    }

    private static func intent(_ action: Action) -> Model.Intent {
        switch action {
        case .previous: .previous
        case .next: .next
        case .back: .back
        }
    }

    /// The model's answer, performed: a reading started here, the opener shown again, the rest by `App`.
    private func send(_ intent: Model.Intent, app: App) -> SceneChange? {
        let effects = model.handle(intent, now: app.now)
        var change = app.perform(effects)
        for effect in effects {
            switch effect {
            case .readStatistics(let player):
                reading = StatisticsReading(directory: directory, player: player, trendMatches: trendMatches)
                app.setNeedsRedraw()
            case .returnToOpener:
                change = .show(opener ?? app.menu())
            default:
                break
            }
        }
        return change
    }

    // MARK: - Drawing

    public func draw(_ graphics: Graphics, app: App) {
        MenuKit.background(graphics, app.assets)
        MenuKit.heading(graphics, "Statistics", y: 12)
        buttons.hidden = model.canPick ? [] : [.previous, .next]
        graphics.text(graphics.fitted(model.player, width: 420, size: 26, bold: true), at: Point(Model.pickerCenter.x, Model.pickerCenter.y - 17),
                      size: 26, bold: true, color: .white)
        switch model.state {
        case .reading:
            graphics.text(model.readingLine, at: Point(512, 340), size: 24, bold: true, color: .gold)
        case .failed(let why):
            MenuKit.paragraph(graphics, Model.failedText(why), at: Point(512, 300), width: 760, size: 18,
                              color: MenuKit.errorColor, maxLines: 5)
        case .read(let read):
            if let figures = read.figures {
                drawFigures(figures, graphics)
            } else {
                MenuKit.paragraph(graphics, Model.emptyText(read, player: model.player), at: Point(512, 300), width: 760, size: 20,
                                  color: MenuKit.hintColor, maxLines: 4)
            }
        }
        if let warning = model.warningLine {
            graphics.text(graphics.fitted(warning, width: 900, size: 13), at: Point(512, 672), size: 13, color: MenuKit.errorColor)
        }
        buttons.draw(graphics, app.assets)
        MenuKit.footer(graphics, model.footer)
    }

    private func drawFigures(_ figures: PlayerStatistics, _ graphics: Graphics) {
        graphics.text(Model.summaryLine(figures), at: Point(512, 128), size: 16, color: MenuKit.hintColor)
        for (rect, heading) in Model.panels(figures) {
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
        let area = Model.chartArea(Model.winsPanel)
        guard let chart = Model.winsChart(figures, in: area) else { return }
        guard chart.top > 0 else {
            graphics.text("No round won yet", at: Point(area.center.x, area.center.y - 10), size: 16, color: MenuKit.hintColor)
            return
        }
        // Rounds won behind, matches won in front: a match won needs a round won, so the gold never hides the blue.
        // Each column reaches a point into the next: the renderer's scaling rounds each rect's
        // edges on its own, which left hairline seams between abutting ones (opaque colours: no overlap shows).
        for (columns, color) in [(chart.rounds, Self.roundsColor), (chart.matches, Self.matchesColor)] {
            for (index, column) in columns.enumerated() {
                var drawn = column
                if index + 1 < columns.count, columns[index + 1].x == column.x + column.width { drawn.width += 1 }
                graphics.fill(drawn, color)
            }
        }
        graphics.fill(Rect(x: area.x, y: area.y + area.height, width: area.width, height: 1), Self.axisColor)
        graphics.text("\(chart.top)", at: Point(area.x - 6, area.y - 8), size: 13, color: MenuKit.hintColor, align: .right)
        graphics.text("0", at: Point(area.x - 6, area.y + area.height - 8), size: 13, color: MenuKit.hintColor, align: .right)
        let (first, last) = Model.dateRange(figures.progress)
        graphics.text(first, at: Point(area.x, area.y + area.height + 4), size: 13, color: MenuKit.hintColor, align: .left)
        graphics.text(last, at: Point(area.x + area.width, area.y + area.height + 4), size: 13, color: MenuKit.hintColor, align: .right)
        let legendY = Model.winsPanel.y + Model.winsPanel.height - 26
        let legend = Model.legend(figures)
        graphics.fill(Rect(x: area.x, y: legendY + 4, width: 12, height: 12), Self.roundsColor)
        graphics.text(legend.rounds, at: Point(area.x + 18, legendY), size: 14, color: .white, align: .left)
        graphics.fill(Rect(x: area.x + 210, y: legendY + 4, width: 12, height: 12), Self.matchesColor)
        graphics.text(legend.matches, at: Point(area.x + 228, legendY), size: 14, color: .white, align: .left)
    }

    private func drawReaction(_ figures: PlayerStatistics, _ graphics: Graphics) {
        let panel = Model.reactionPanel
        graphics.text(Model.reactionLine(figures), at: Point(panel.x + 14, panel.y + 34), size: 15, color: .white, align: .left)
        guard figures.reaction.calls > 0 else { return }
        let area = Model.histogramArea
        for bar in Model.histogramBars(figures.reaction.histogram, in: area) {
            graphics.fill(bar.rect, Self.barColor)
            graphics.text(bar.count, at: Point(bar.rect.center.x, bar.rect.y - 18), size: 13, color: .white)
            graphics.text(bar.label, at: Point(bar.rect.center.x, area.y + area.height + 4), size: 12, color: MenuKit.hintColor)
        }
        graphics.fill(Rect(x: area.x, y: area.y + area.height, width: area.width, height: 1), Self.axisColor)
        graphics.text("seconds from the card to the call", at: Point(area.x + area.width / 2, area.y + area.height + 22), size: 12,
                      color: MenuKit.hintColor)
    }

    private func drawOpponents(_ figures: PlayerStatistics, _ graphics: Graphics) {
        let panel = Model.opponentsPanel
        let rows = Model.opponentRows(figures, limit: Model.opponentRowLimit)
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
        let panel = Model.trendPanel
        graphics.text(Model.callsLine(figures), at: Point(panel.x + 14, panel.y + 34), size: 15, color: .white, align: .left)
        let area = Model.trendArea
        let bars = Model.trendBars(figures.trend, in: area)
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
}
#endif
