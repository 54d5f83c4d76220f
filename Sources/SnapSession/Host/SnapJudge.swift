import SnapEngine
import SnapProtocol

/// Fair judging of Snap! (docs/ARCHITECTURE.md, "Fair judging of Snap!"): the host's
/// part that decides whose call came first by when it was *made*, not when it arrived.
///
/// It remembers when each reference card went out (the deal's last card, then every
/// turned card), estimates each call's reaction time from the player's claim and the
/// link's round trip, and keeps a short window open while a call still on its way could
/// beat the best one. It never touches the game: `verdicts(now:)` says in which order the
/// waiting calls go to it, and the session applies them.
struct SnapJudge: Sendable {
    struct Call: Hashable, Sendable {
        var seat: Seat
        /// The reaction time the host believes.
        var estimate: Duration
        var arrival: Duration
    }

    /// When each reference card went out: the deal's last card (0), then each turned card.
    private(set) var referenceSentAt: [Duration] = []
    /// Calls waiting for the window to close, in the order they arrived.
    private(set) var calls: [Call] = []
    /// When the open window closes (nil: none is open).
    private(set) var deadline: Duration?
    /// Breaks exact ties in an order seeded from the match, so replays agree.
    private var ties: SeededRandom
    /// The longest the window stays open after the first call.
    private let windowCap: Duration

    init(matchSeed: UInt64, windowCap: Duration) {
        ties = SeededRandom(seed: matchSeed ^ 0x5EED_F00D)
        self.windowCap = windowCap
    }

    // MARK: - What the table did

    /// Keeps the reference cards' times; a new round or a won one drops the waiting calls.
    mutating func observe(_ event: Event, at now: Duration) {
        switch event {
        case .roundStarted:
            referenceSentAt = []
            calls = []
        case .dealFinished:
            referenceSentAt = [now]
        case .turned:
            referenceSentAt.append(now)
        case .roundWon:
            deadline = nil
            calls = []
        default:
            break
        }
    }

    /// A host resumed mid-round: every card so far counts as sent now.
    mutating func resume(turnsThisRound: Int, at now: Duration) {
        referenceSentAt = Array(repeating: now, count: turnsThisRound + 1)
    }

    // MARK: - Calls

    /// What one of the host's own computer players claims: a zero-latency press, its
    /// reaction measured from when the current card went out, like anyone's.
    func computerCall(at now: Duration) -> SnapCall {
        let reaction = now - (referenceSentAt.last ?? now)
        return SnapCall(seenTurns: UInt32(max(0, referenceSentAt.count - 1)),
                        reactionMicros: UInt32(clamping: reaction.microseconds))
    }

    /// A call's reaction time as the host estimates it: the player's own claim, clamped
    /// to what the arrival time and that connection's slowest round trip make possible.
    func estimate(_ call: SnapCall, roundTrip: Duration, now: Duration) -> Duration {
        let current = referenceSentAt.count - 1
        let elapsed = now - (referenceSentAt.last ?? now)
        // A call about an older card was pressed before the current one showed: it
        // counts as if pressed when it arrived.
        guard Int(call.seenTurns) == current else { return elapsed }
        let claimed = Duration.microseconds(Int64(call.reactionMicros))
        // Pressed after the card was sent and before the call arrived, and no sooner than
        // the slowest round trip seen on this link allows.
        let floor = max(.zero, elapsed - roundTrip - Self.slack(roundTrip))
        return min(max(claimed, floor), elapsed)
    }

    /// What a link's round trip may hide beyond itself.
    static func slack(_ roundTrip: Duration) -> Duration { .microseconds(300) + roundTrip / 4 }

    /// Whether a window is open: calls wait for their verdict.
    var isWaiting: Bool { !calls.isEmpty }

    func hasCalled(_ seat: Seat) -> Bool { calls.contains { $0.seat == seat } }

    /// A call joins the window (`roundTrip`: its link's slowest).
    mutating func add(_ call: SnapCall, from seat: Seat, roundTrip: Duration, now: Duration) {
        calls.append(Call(seat: seat, estimate: estimate(call, roundTrip: roundTrip, now: now), arrival: now))
    }

    /// Judging waits only as long as a call still on its way could beat the best one: a
    /// player's call can show a reaction no faster than its arrival minus that link's
    /// slowest round trip, so past `reference + best + rtt + slack` nobody can win.
    /// `rivals`: the round trips of the players who could still call. Returns whether the
    /// window stays open (until `deadline`); false: judge now.
    mutating func keepOpen(forRivals rivals: [Duration], now: Duration) -> Bool {
        guard let first = calls.first, let reference = referenceSentAt.last else { return false }
        let best = calls.map(\.estimate).min()!
        var closes = now
        for rtt in rivals { closes = max(closes, reference + best + rtt + Self.slack(rtt)) }
        closes = min(closes, first.arrival + windowCap)
        if closes <= now { return false }
        deadline = closes
        return true
    }

    /// Closes the window. The waiting calls fastest first (exact ties in the match's seeded
    /// order), with the line the host logs; nil when no call waited.
    mutating func verdicts(now: Duration) -> (order: [Seat], log: String)? {
        deadline = nil
        guard !calls.isEmpty else { return nil }
        var pending = calls
        calls = []
        ties.shuffle(&pending)
        pending.sort { $0.estimate < $1.estimate }  // stable: ties keep the shuffled order
        let waited = now - pending.map(\.arrival).min()!
        let line = "judged after waiting \(waited.microseconds) µs: "
            + pending.map { "\($0.seat) \($0.estimate.microseconds) µs" }.joined(separator: ", ")
        return (pending.map(\.seat), line)
    }

    /// The game ended: no window closes any more.
    mutating func stop() { deadline = nil }
}
