import SnapEngine

/// What a computer player wants to do.
public enum BotIntent: Hashable, Sendable {
    case turn
    case snap
}

/// A computer player as a pure policy: it sees only what its seat may see (the
/// `TableView` and the `SeatEvent`s), is told the time, and answers with the intent
/// it wants to send and when. It never sleeps and owns no clock, so the same code
/// plays in virtual time (simulation, tests) and real time (network bots, solo play).
///
/// Times are `Duration`s since any fixed origin the driver chooses.
public struct Bot: Hashable, Sendable {
    /// The computer players' names, in the order they take seats.
    public static let names = ["Ray", "Lucy", "Steve"]

    public let seat: Seat
    public let level: BotLevel
    public private(set) var pendingTurn: Duration?
    public private(set) var pendingSnap: Duration?
    private var random: SeededRandom

    /// Multiplies every delay (a faster host, a quicker test); 0 acts at once.
    public let timeScale: Double

    public init(seat: Seat, level: BotLevel = .normal, seed: UInt64, timeScale: Double = 1) {
        self.seat = seat
        self.level = level
        self.timeScale = timeScale
        random = SeededRandom(seed: seed ^ (UInt64(seat.rawValue) &* 0x9E37_79B9_7F4A_7C15))
    }

    /// Updates the plan after one batch of events (everything one command caused) was
    /// applied to `table`.
    public mutating func observe(_ events: [SeatEvent], table: TableView, now: Duration) {
        var cardTurned = false
        var snapCalled = false
        for event in events {
            switch event {
            case .turned: cardTurned = true
            case .snapCalled: snapCalled = true
            default: break
            }
        }
        let me = table[seat]
        guard table.phase == .playing, me.isPresent, me.hasCards else {
            pendingTurn = nil
            pendingSnap = nil
            return
        }
        let timing = level.timing
        if cardTurned {
            // Every turned card cancels pending snaps; a match (or, rarely, a mistake) schedules one.
            pendingSnap = nil
            if !table.matching.isEmpty || random.unit() < timing.mistakeChance {
                pendingSnap = now + delay(timing.snapBase, timing.snapSpread)
            }
        }
        // A snap cancels a pending turn; it is rescheduled once the cards have moved,
        // which the engine does within the same batch.
        if snapCalled { pendingTurn = nil }
        if table.active == seat, !table.hasTurned {
            if pendingTurn == nil { pendingTurn = now + delay(timing.turnBase, timing.turnSpread) }
        } else {
            pendingTurn = nil
        }
    }

    /// When this player next wants to act, if ever.
    public var nextWake: Duration? {
        switch (pendingTurn, pendingSnap) {
        case (nil, nil): nil
        case (let turn?, nil): turn
        case (nil, let snap?): snap
        case (let turn?, let snap?): min(turn, snap)
        }
    }

    /// The intent due at `now`, if any (a snap before a turn when both are due); it is
    /// no longer pending once returned.
    public mutating func due(at now: Duration) -> BotIntent? {
        if let snap = pendingSnap, snap <= now {
            pendingSnap = nil
            return .snap
        }
        if let turn = pendingTurn, turn <= now {
            pendingTurn = nil
            return .turn
        }
        return nil
    }

    private mutating func delay(_ base: Duration, _ spread: Duration) -> Duration {
        (base + spread * random.unit()) * timeScale
    }
}
