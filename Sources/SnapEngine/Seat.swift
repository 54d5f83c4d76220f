/// A place at the table, named as the host sees it. Clockwise order is
/// bottom → left → top → right → bottom (the raw values follow it).
public enum Seat: UInt8, CaseIterable, Sendable, Codable, Comparable, CustomStringConvertible {
    case bottom, left, top, right

    public static func < (a: Seat, b: Seat) -> Bool { a.rawValue < b.rawValue }

    /// The next seat clockwise, occupied or not.
    public var clockwiseNext: Seat { Seat(rawValue: (rawValue + 1) % 4)! }

    /// All four seats clockwise, starting with `self`.
    public var clockwiseFromHere: [Seat] { Array(Clockwise(from: self)) }

    /// The four seats clockwise from a start, without allocating: the engine's turn order
    /// is walked on every activation.
    public struct Clockwise: Sequence, IteratorProtocol {
        private var upcoming: UInt8
        private var left: UInt8 = 4
        public init(from start: Seat) { upcoming = start.rawValue }
        public mutating func next() -> Seat? {
            guard left > 0 else { return nil }
            left -= 1
            let seat = Seat(rawValue: upcoming)
            upcoming = (upcoming + 1) % 4
            return seat
        }
    }

    public var description: String {
        switch self {
        case .bottom: "bottom"
        case .left: "left"
        case .top: "top"
        case .right: "right"
        }
    }

    /// Where `self` appears on the screen of the player sitting at `viewer`:
    /// every window is rotated so that its own player sits at the bottom.
    public func onScreen(of viewer: Seat) -> Seat {
        Seat(rawValue: (rawValue + 4 - viewer.rawValue) % 4)!
    }

    /// The inverse of `onScreen(of:)`: which table seat is drawn at `screenPosition`.
    public static func atScreenPosition(_ screenPosition: Seat, of viewer: Seat) -> Seat {
        Seat(rawValue: (screenPosition.rawValue + viewer.rawValue) % 4)!
    }

    /// The seats for a table of `playerCount` (2–4) players in joining order: the host at
    /// the bottom, a single opponent opposite at the top, otherwise left, top, right.
    public static func seating(playerCount: Int) -> [Seat] {
        switch playerCount {
        case 2: [.bottom, .top]
        case 3: [.bottom, .left, .top]
        case 4: [.bottom, .left, .top, .right]
        default: []
        }
    }
}

extension Sequence where Element == Seat {
    /// These seats in clockwise order starting at `start` (which need not be among them).
    public func clockwise(from start: Seat) -> [Seat] {
        // A bit per seat: no Set to hash on the engine's hot path.
        var members: UInt8 = 0
        for seat in self { members |= UInt8(1) << seat.rawValue }
        var order: [Seat] = []
        order.reserveCapacity(4)
        for seat in Seat.Clockwise(from: start) where members & (UInt8(1) << seat.rawValue) != 0 { order.append(seat) }
        return order
    }
}
