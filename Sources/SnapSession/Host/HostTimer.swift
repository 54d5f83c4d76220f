import SnapEngine

/// Every timer of the host's parts: the table's pacing and turn timer, the judge's window,
/// liveness's pings and grace periods. Each part keeps its own; the session fires those
/// that fall due together in this order (by name, as the host always has).
enum HostTimer: Hashable, Sendable, Comparable {
    /// The next player is activated (the table).
    case activateNext
    /// The deal's animation is over (the table).
    case finishDeal
    /// A dropped seat's grace period is over (liveness).
    case grace(Seat)
    /// The judging window closes (the judge).
    case judge
    /// The next round is dealt by itself (the table).
    case nextRound
    /// Time to ping every connection and cut the silent ones (liveness).
    case ping
    /// The active player let the turn timer run out (the table).
    case turnTimeout

    static func < (a: HostTimer, b: HostTimer) -> Bool {
        if case .grace(let first) = a, case .grace(let second) = b { return first.description < second.description }
        return a.rank < b.rank
    }

    /// Alphabetical, as the names sort; the grace periods among themselves by seat name.
    private var rank: Int {
        switch self {
        case .activateNext: 0
        case .finishDeal: 1
        case .grace: 2
        case .judge: 3
        case .nextRound: 4
        case .ping: 5
        case .turnTimeout: 6
        }
    }
}
