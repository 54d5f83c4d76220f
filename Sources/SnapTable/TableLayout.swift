import SnapEngine

/// Where everything sits on the 1024×768 table, by *screen* position: `.bottom` is always
/// this window's own player (table seats are turned into screen positions with
/// `Seat.onScreen(of:)` before they get here).
///
/// Each seat is a group of two piles side by side — the closed pile on the outer side
/// (or on the player's left, for bottom and top), the open pile towards the middle — with
/// the active-player halo around the group and the name and "N won" labels outside it.
package enum TableLayout {
    /// The gap between a seat's closed and open piles.
    package static let pileGap = 12.0
    /// How far apart the two piles' centres are.
    package static var pileSpacing: Double { cardSize.width + pileGap }
    /// One layer of the closed pile's thickness is drawn for every `cardsPerLayer` cards,
    /// each layer shifted by `layerOffset` (up and a little left: light from the top left).
    package static let cardsPerLayer = 3
    package static let layerOffset = Point(-0.4, -0.8)

    /// The centre of the two-pile group.
    package static func groupCenter(_ position: Seat) -> Point {
        switch position {
        case .bottom: Point(512, 594)
        case .top: Point(512, 178)
        case .left: Point(150, 378)
        case .right: Point(874, 378)
        }
    }

    /// The centre of the *lowest* card of the closed pile.
    package static func closedCenter(_ position: Seat) -> Point {
        let center = groupCenter(position)
        let half = pileSpacing / 2
        switch position {
        case .bottom, .left: return Point(center.x - half, center.y)
        case .top, .right: return Point(center.x + half, center.y)
        }
    }

    package static func openCenter(_ position: Seat) -> Point {
        let center = groupCenter(position)
        let half = pileSpacing / 2
        switch position {
        case .bottom, .left: return Point(center.x + half, center.y)
        case .top, .right: return Point(center.x - half, center.y)
        }
    }

    /// How many thickness layers a closed pile of `count` cards shows (0 for none).
    package static func layers(_ count: Int) -> Int { count <= 0 ? 0 : (count + cardsPerLayer - 1) / cardsPerLayer }

    /// The centre of the top card of a closed pile of `count` cards.
    package static func closedTop(_ position: Seat, count: Int) -> Point {
        closedCenter(position) + layerOffset * Double(max(0, layers(count) - 1))
    }

    /// The top card of a stack of `count` cards whose lowest card is centred at `base`.
    package static func closedTopLike(_ base: Point, count: Int) -> Point {
        base + layerOffset * Double(max(0, layers(count) - 1))
    }

    /// The area a click on the closed pile hits: the card, and its full-deck thickness above it.
    package static func closedHitRect(_ position: Seat) -> Rect {
        let base = Rect(center: closedCenter(position), size: cardSize)
        let rise = -layerOffset.y * Double(layers(52) - 1)
        return Rect(x: base.x - 4, y: base.y - rise - 2, width: base.width + 8, height: base.height + rise + 6)
    }

    /// The halo behind the active seat (the asset is 180×140; drawn a little larger so the
    /// piles' jitter and thickness stay inside it).
    package static func highlightRect(_ position: Seat) -> Rect {
        Rect(center: groupCenter(position) + Point(0, -3), size: Size(206, 160))
    }

    /// Top-centre of the name label; the "N won" line goes right under it.
    package static func nameOrigin(_ position: Seat) -> Point {
        let center = groupCenter(position)
        switch position {
        case .bottom: return Point(center.x, center.y + 82)
        case .top: return Point(center.x, center.y - 138)
        case .left, .right: return Point(center.x, center.y + 82)
        }
    }

    /// Where the "SNAP!" bubble's tail points (its tip is at (42,75) of the 140×80 image,
    /// so the bubble sits above and to the right of this point).
    package static func bubbleTip(_ position: Seat) -> Point {
        let center = groupCenter(position)
        switch position {
        case .bottom: return Point(center.x + 98, center.y - 44)
        case .top: return Point(center.x + 100, center.y + 40)
        case .left: return Point(center.x + 40, center.y - 58)
        case .right: return Point(center.x - 30, center.y - 58)
        }
    }

    package static func bubbleRect(_ position: Seat) -> Rect {
        let tip = bubbleTip(position)
        return Rect(x: tip.x - 42, y: tip.y - 75, width: 140, height: 80)
    }

    /// The deck the cards are dealt from.
    package static let deckCenter = Point(512, 424)
    /// The status line: in the middle of the table, or above the deck while one is shown.
    package static let statusCenterY = 366.0
    package static let statusAboveDeckY = 300.0

    package static let snapButtonFrame = Rect(center: Point(930, 670), size: Size(120, 120))
    package static let exitCenter = Point(84, 36)
    package static let nextRoundCenter = Point(512, 446)

    /// Where a seat's cards slide to when the table is cleared at the end of a round:
    /// outwards, past the edge of the table.
    package static func awayPoint(_ position: Seat) -> Point {
        let center = groupCenter(position)
        switch position {
        case .bottom: return Point(center.x, center.y + 190)
        case .top: return Point(center.x, center.y - 190)
        case .left: return Point(center.x - 190, center.y)
        case .right: return Point(center.x + 190, center.y)
        }
    }
}
