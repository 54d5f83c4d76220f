#if GUI
import SnapTable
import Glibc
import SnapEngine

/// A scene that draws a `TableModel`: the live table, or a replay.
protocol TableDrawer: AnyObject {
    var model: TableModel { get }
    /// The round is being played (a present seat with no cards is "out").
    var roundInPlay: Bool { get }
    /// A closed pile's top card to show face up (a replay shows every card); nil: backs.
    func revealedTop(_ seat: Seat) -> Card?
    /// Rounds a seat's player won in earlier matches, if known.
    func earlierWins(_ seat: Seat) -> Int?
}

/// The live table: its own lines, buttons and the waiting panel around the shared board.
extension TableScene: TableDrawer {
    var roundInPlay: Bool {
        guard gameOver == nil, case .playing = table?.phase ?? .lobby else { return false }
        return true
    }

    func revealedTop(_ seat: Seat) -> Card? { nil }

    func earlierWins(_ seat: Seat) -> Int? { client.session.earlierWins[seat] }

    func drawTable(_ graphics: Graphics, app: App, now: Double) {
        let assets = app.assets
        Self.feltWithVignette(graphics, assets)
        guard model.started, let table else {
            drawWaiting(graphics)
            exitButton.draw(graphics, assets: assets)
            if let dialog { dialog.draw(graphics, assets: assets) }
            return
        }
        let visual = model.visual
        if visual.round > 0 {
            graphics.text("Round \(visual.round)", at: Point(1004, 14), size: 16, bold: true, color: Self.winsColor,
                          align: .right)
        }
        let watchers = client.session.watchers
        if watchers > 0 || client.session.isWatching {
            let text = client.session.isWatching ? "Watching · \(watchers) watching" : "\(watchers) watching"
            graphics.text(text, at: Point(1004, 36), size: 14, bold: false, color: Self.winsColor, align: .right)
        }
        if let notice = dealNotice, notice.until > now {
            let bad = notice.verdict.isMismatch
            let text = switch notice.verdict {
            case .verified: "Deal verified"
            case .commitmentOnly: "Deal commitment verified"
            case .mismatch: "Warning: the host's deal does not match its commitment"
            }
            graphics.text(text, at: Point(1004, 58), size: bad ? 16 : 14, bold: bad,
                          color: bad ? Self.statusColors[.bad]! : Self.winsColor, align: .right)
        }
        drawBoard(graphics, assets: assets, seats: table.seats, now: now,
                  statusY: visual.deck > 0 ? TableLayout.statusAboveDeckY : TableLayout.statusCenterY) {
            drawStatus(graphics, y: $0)
        }

        // Readable in snapcards play's smaller tiles too (there a point is ¾ of a pixel).
        graphics.text("Space  turn     S  Snap!     M  sound     Esc  exit", at: Point(18, 738), size: 15,
                      color: Color(215, 232, 215, 210), align: .left, shadow: true)
        exitButton.draw(graphics, assets: assets)
        if showsNextRound { nextRoundButton.draw(graphics, assets: assets) }
        if showsStatistics { placedStatisticsButton.draw(graphics, assets: assets) }
        if showsSnap {
            let pressed = snapHeld || snapPressedUntil > now
            graphics.draw(pressed ? assets.snapButtonPressed : assets.snapButton, in: snapButtonFrame)
        }
        if let dialog { dialog.draw(graphics, assets: assets) }
    }

    // MARK: - Status, effects, waiting

    private func drawStatus(_ graphics: Graphics, y: Double) {
        let text = statusLine
        guard !text.isEmpty else { return }
        let tone = activeNotice?.tone ?? model.visual.tone
        Self.drawStatusBand(graphics, text, color: gameOver != nil ? Color.gold : (Self.statusColors[tone] ?? .white), y: y)
    }

    private func drawWaiting(_ graphics: Graphics) {
        let players = client.session.lobby
        let height = players.isEmpty ? 150 : 140 + 30 * Double(min(4, players.count))
        let panel = Rect(center: Point(512, 372), size: Size(520, height))
        Self.roundedRect(graphics, panel, Color(0, 0, 0, 90), radius: 18)
        graphics.text(statusLine, at: Point(512, panel.y + 30), size: 26, bold: true, color: .gold)
        if players.isEmpty {
            graphics.text(client.session.phase == .connecting ? "Talking to the host…" : "",
                          at: Point(512, panel.y + 90), size: 17, color: Self.winsColor)
        } else {
            graphics.text("At the table:", at: Point(512, panel.y + 80), size: 16, color: Self.winsColor)
            for (row, player) in players.prefix(4).enumerated() {
                let isMe = player.id == client.session.welcome?.playerID
                graphics.text(player.name + (isMe ? " (you)" : ""), at: Point(512, panel.y + 110 + Double(row) * 30),
                              size: 20, bold: true, color: .white)
            }
        }
    }
}

/// The board every table scene shares: seats, deck, flying cards, bubbles and splashes,
/// drawn from the model (read-only: nothing here changes state).
extension TableDrawer {
    static var nameColor: Color { .white }
    static var leftColor: Color { Color(150, 160, 150) }
    static var winsColor: Color { Color(226, 238, 205) }
    static var statusColors: [TableVisual.Tone: Color] {
        [.normal: .white, .good: .gold, .bad: Color(255, 150, 130), .mine: Color(180, 255, 170)]
    }

    /// `status` draws the status line at the y it is given, between the piles and the flights.
    func drawBoard(_ graphics: Graphics, assets: Assets, seats: [Seat], now: Double, statusY: Double,
                   status: (Double) -> Void) {
        let visual = model.visual
        for seat in seats { drawSeat(seat, graphics, assets: assets) }
        if visual.deck > 0 { Self.drawStack(graphics, assets: assets, base: TableLayout.deckCenter, count: visual.deck) }
        status(statusY)

        for flight in model.flights.filter(\.began).sorted(by: { $0.start < $1.start }) {
            let pose = model.pose(flight, now: now)
            let width = cardSize.width * pose.scaleX * pose.scale
            guard width >= 0.5, pose.alpha > 0.01 else { continue }
            let texture = pose.faceUp ? assets.face(flight.card!) : assets.back
            if pose.faceUp, let card = flight.card { model.faceDrawn(card) }
            graphics.draw(texture, in: Rect(center: pose.center, size: Size(width, cardSize.height * pose.scale)),
                          degrees: pose.degrees, alpha: pose.alpha)
        }
        // Splashes first: a caller's bubble stays readable on top of their splash.
        for effect in model.effects where effect.kind != .bubble { drawEffect(effect, graphics, assets: assets, now: now) }
        for effect in model.effects where effect.kind == .bubble { drawEffect(effect, graphics, assets: assets, now: now) }
    }

    // MARK: - Seats

    func drawSeat(_ seat: Seat, _ graphics: Graphics, assets: Assets) {
        let visual = model.visual
        let position = model.screen(seat)
        let index = Int(seat.rawValue)
        let present = visual.present[index]
        if present, visual.active == seat {
            graphics.draw(assets.highlight, in: TableLayout.highlightRect(position))
        }

        // Closed pile: backs, one layer per few cards so its thickness shows.
        let closed = max(0, visual[closed: seat])
        let closedBase = TableLayout.closedCenter(position)
        if closed == 0 {
            if present { Self.placeholder(graphics, at: closedBase) }
        } else {
            Self.drawStack(graphics, assets: assets, base: closedBase, count: closed)
            if let top = revealedTop(seat) {
                let at = TableLayout.closedTop(position, count: closed)
                graphics.draw(assets.face(top), in: Rect(center: at, size: cardSize))
            }
        }

        // Open pile: faces, each a little off and tilted (cosmetic, seeded by card and round).
        let open = visual[open: seat]
        let openBase = TableLayout.openCenter(position)
        if open.isEmpty {
            if present { Self.placeholder(graphics, at: openBase) }
        } else {
            Self.roundedRect(graphics, Rect(center: openBase + Point(2, 3), size: cardSize), Color(0, 0, 0, 55), radius: 6)
            if let top = open.last { model.faceDrawn(top) }
            // The top six: below them a tilted card hardly shows, and each costs a rotated copy a frame.
            for card in open.suffix(6) {
                let jitter = TableModel.jitter(card, round: visual.round)
                graphics.draw(assets.face(card), in: Rect(center: openBase + jitter.offset, size: cardSize),
                              degrees: jitter.degrees)
            }
        }

        // How many cards: a small tag on the closed pile.
        let total = visual.cardCount(seat)
        if present, closed > 0 {
            let tag = "\(closed)"
            let tagRect = Rect(center: closedBase + Point(0, cardSize.height / 2 + 1), size: Size(tag.count > 1 ? 30 : 22, 18))
            Self.roundedRect(graphics, tagRect, Color(0, 0, 0, 165), radius: 9)
            graphics.text(tag, at: Point(tagRect.center.x, tagRect.y + 1), size: 12, bold: true, color: .white,
                          shadow: false)
        }

        // Name and "N won".
        let origin = TableLayout.nameOrigin(position)
        let name = model.name(seat)
        let isMe = seat == model.me
        let label = present ? (isMe ? "\(name) (you)" : name) : "\(name) (left)"
        graphics.text(label, at: origin, size: 18, bold: true, color: present ? Self.nameColor : Self.leftColor)
        var line = visual.wins[index] == 1 ? "1 won" : "\(visual.wins[index]) won"
        // Across matches: the host's journals' count, plus this match's.
        if let earlier = earlierWins(seat) { line += " · \(earlier + visual.wins[index]) in all" }
        if present, total == 0, visual.round > 0, !visual.cleared, visual.deck == 0, roundInPlay {
            line = "out · " + line
        }
        graphics.text(line, at: origin + Point(0, 23), size: 14, color: present ? Self.winsColor : Self.leftColor)
    }

    /// A pile of `count` card backs whose lowest card is centred at `base`.
    static func drawStack(_ graphics: Graphics, assets: Assets, base: Point, count: Int) {
        let layers = TableLayout.layers(count)
        guard layers > 0 else { return }
        let top = TableLayout.closedTopLike(base, count: count)
        roundedRect(graphics, Rect(center: base + Point(2, 3), size: cardSize), Color(0, 0, 0, 60), radius: 6)
        for layer in 0..<layers {
            let center = base + TableLayout.layerOffset * Double(layer)
            graphics.draw(assets.back, in: Rect(center: layer == layers - 1 ? top : center, size: cardSize))
        }
    }

    /// Where a pile would be: a faint outline on the felt.
    static func placeholder(_ graphics: Graphics, at center: Point) {
        let rect = Rect(center: center, size: cardSize)
        roundedRect(graphics, rect, Color(0, 0, 0, 40), radius: 6)
        graphics.outline(rect.insetBy(3), Color(255, 255, 255, 40), thickness: 1)
    }

    func drawEffect(_ effect: TableEffect, _ graphics: Graphics, assets: Assets, now: Double) {
        let t = now - effect.start
        guard t >= 0 else { return }
        let position = model.screen(effect.seat)
        switch effect.kind {
        case .bubble:
            let appear = min(1, t / 0.12)
            let scale = 0.6 + 0.4 * (1 - (1 - appear) * (1 - appear))
            let alpha = min(appear * 1.5, max(0, (TableEffect.bubbleDuration - t) / 0.2), 1)
            let tip = TableLayout.bubbleTip(position)
            let rect = Rect(x: tip.x - 42 * scale, y: tip.y - 75 * scale, width: 140 * scale, height: 80 * scale)
            graphics.draw(assets.bubble, in: rect, alpha: alpha)
        case .smiley, .wrong:
            let pop = TableEffect.popDuration, hold = TableEffect.splashHold, fade = TableEffect.splashFade
            let scale: Double, alpha: Double
            if t < pop {
                scale = 2 - t / pop
                alpha = 0.6 + 0.4 * t / pop
            } else if t < pop + hold {
                scale = 1
                alpha = 1
            } else {
                let u = min(1, (t - pop - hold) / fade)
                scale = 1 - 0.7 * u
                alpha = 1 - u
            }
            // A badge on the closed pile's outer top corner: the open piles that made the call
            // right or wrong stay in sight.
            let closed = TableLayout.closedCenter(position), open = TableLayout.openCenter(position)
            let outward = closed.x == open.x ? 0 : (closed.x < open.x ? -1.0 : 1.0)
            let center = closed + Point(outward * cardSize.width * 0.55, -cardSize.height * 0.55)
            let rect = Rect(center: center, size: Size(84 * scale, 84 * scale))
            graphics.draw(effect.kind == .smiley ? assets.smiley : assets.wrong, in: rect, alpha: alpha)
        case .celebration:
            Self.drawCelebration(graphics, assets: assets, from: TableLayout.groupCenter(position), t: t,
                                 seed: Int(effect.seat.rawValue))
        }
    }

    /// A round won: cards burst from the winner's seat like a firework, tumble, and fade
    /// before they fall far.
    static func drawCelebration(_ graphics: Graphics, assets: Assets, from origin: Point, t: Double, seed: Int) {
        let duration = TableEffect.celebrationDuration
        let fade = max(0, min(1, (duration - t) / (duration * 0.45)))
        let size = Size(cardSize.width * 0.5, cardSize.height * 0.5)
        let count = 16
        for index in 0..<count {
            let u = t - Double(index % 2) * 0.12  // two bursts
            guard u > 0 else { continue }
            // All around, a little different for each card (no randomness: every screen agrees).
            let angle = Double(index) / Double(count) * 2 * .pi + Double(seed) * 0.4
            let speed = 260 + Double((index * 37 + seed * 11) % 5) * 35
            let point = origin + Point(cos(angle) * speed * u, sin(angle) * speed * u + 160 * u * u)
            let spin = (index % 2 == 0 ? 1.0 : -1.0) * (220 + Double(index * 13 % 160)) * u
            let card = Card(id: UInt8((index * 7 + seed * 13) % 52))!
            graphics.draw(assets.face(card), in: Rect(center: point, size: size), degrees: spin, alpha: fade)
        }
    }

    /// The status line on its dark band, centred at `y`.
    static func drawStatusBand(_ graphics: Graphics, _ text: String, color: Color, y: Double) {
        let size = 24
        let width = graphics.textTexture(text, size: size, bold: true).map { Double($0.pixelWidth) / 2 } ?? 0
        let band = Rect(center: Point(512, y + 15), size: Size(min(760, width + 56), 44))
        roundedRect(graphics, band, Color(0, 0, 0, 100), radius: 20)
        graphics.text(text, at: Point(512, y), size: size, bold: true, color: color)
    }

    // MARK: - Shapes

    /// Darker towards the edges, so the middle of the table draws the eye.
    /// The table's felt with its shaded edges, drawn once and copied each frame.
    static func feltWithVignette(_ graphics: Graphics, _ assets: Assets) {
        graphics.backdrop("table felt") { graphics in
            graphics.tile(assets.felt, tileSize: Size(256, 256))
            vignette(graphics)
        }
    }

    static func vignette(_ graphics: Graphics) {
        MenuKit.shadeEdges(graphics, depth: 80, darkest: 44, sides: true)
    }

    /// A filled rectangle with rounded corners (scanlines for the corners).
    static func roundedRect(_ graphics: Graphics, _ rect: Rect, _ color: Color, radius: Double) {
        graphics.fillRoundedRect(rect, color, radius: radius)
    }
}
#endif
