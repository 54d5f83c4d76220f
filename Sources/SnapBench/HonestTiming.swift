import SnapEngine
import SnapProtocol

/// The two honest players of `snap-bench attack`: they turn when it is their turn and time
/// each Snap! until its verdict has reached both of them.
///
/// On a still table (`snapcards host --bench-still-table`) they call Snap! in turn, one call
/// in flight, 8 calls a second each (today's host cuts more than 20; a human manages
/// fewer than 8, and a host's budget must let that through). On a moving
/// table they call when they see a match, and count the turns.
final class HonestTiming {
    let peers: [AttackPeer]
    let still: Bool
    let attackerName: String
    private(set) var latencies: [Double] = []
    private(set) var missed = 0
    /// Seconds from the start: the last verdict that reached both players.
    private(set) var lastVerdict: Double?
    private(set) var turns = Turns()

    struct Turns {
        var total = 0
        var forAttacker = 0
        var firstForAttacker: Double?
        var last: Double?
        var longestGap = 0.0
    }

    private struct InFlight {
        var sent: ContinuousClock.Instant
        var waiting: Set<Int>
        var last: ContinuousClock.Instant
    }

    private var inFlight: [Seat: InFlight] = [:]
    private var snappedAtTurn: [Int: UInt32] = [:]
    private let clock = ContinuousClock()
    static let timeout = Duration.seconds(2)
    static let spacing = Duration.milliseconds(1000) / 16

    init(peers: [AttackPeer], still: Bool, attackerName: String) {
        self.peers = peers
        self.still = still
        self.attackerName = attackerName
    }

    /// Plays until `deadline` (or until an honest player is cut); `tick` runs every half second.
    func run(start: ContinuousClock.Instant, deadline: ContinuousClock.Instant, tick: () -> Void) {
        var nextSnap = clock.now
        var nextTick = clock.now
        var caller = 0
        turns.last = 0
        for peer in peers {  // activated before the timing began
            if let seat = peer.session.seat, let table = peer.session.table, table.active == seat, !table.hasTurned {
                peer.send(.turn)
            }
        }
        while clock.now < deadline, !peers.contains(where: \.closed) {
            if clock.now >= nextTick {
                tick()
                nextTick = clock.now + .milliseconds(500)
            }
            expire(start: start)
            if still, inFlight.isEmpty, clock.now >= nextSnap {
                snap(caller)
                caller = (caller + 1) % peers.count
                nextSnap = clock.now + Self.spacing
            }
            AttackPeer.pump(peers, milliseconds: 5, now: { clock.now - Attackers.origin }) { index, message in
                receive(message, at: index, start: start)
            }
        }
        if let last = turns.last {
            turns.longestGap = max(turns.longestGap, Attackers.seconds(min(clock.now, deadline) - start) - last)
        }
    }

    private func snap(_ index: Int) {
        let peer = peers[index]
        guard let seat = peer.session.seat, peer.session.table?[seat].hasCards == true else { return }
        inFlight[seat] = InFlight(sent: clock.now, waiting: Set(peers.indices), last: clock.now)
        peer.send(peer.session.snap(at: clock.now - Attackers.origin))
    }

    private func expire(start: ContinuousClock.Instant) {
        for (seat, call) in inFlight where clock.now - call.sent > Self.timeout {
            inFlight[seat] = nil
            missed += 1
        }
    }

    private func receive(_ message: HostMessage, at index: Int, start: ContinuousClock.Instant) {
        guard case .events(let events) = message else { return }
        let peer = peers[index]
        let now = clock.now
        for event in events {
            switch event {
            case .activated(let seat) where seat == peer.session.seat:
                peer.send(.turn)
            case .turned(let seat, _) where index == 0:
                let at = Attackers.seconds(now - start)
                turns.longestGap = max(turns.longestGap, at - (turns.last ?? 0))
                turns.total += 1
                turns.last = at
                if peer.session.names[seat] == attackerName {
                    turns.forAttacker += 1
                    if turns.firstForAttacker == nil { turns.firstForAttacker = at }
                }
            default:
                if let seat = event.verdictFor, var call = inFlight[seat], call.waiting.contains(index) {
                    call.waiting.remove(index)
                    call.last = now
                    inFlight[seat] = call
                    if call.waiting.isEmpty {
                        inFlight[seat] = nil
                        latencies.append(NetBenchmark.microseconds(call.last - call.sent))
                        lastVerdict = Attackers.seconds(now - start)
                    }
                }
            }
        }
        // On a moving table: call Snap! once per card, when this player sees a match.
        if !still, let table = peer.session.table, table.phase == .playing, !table.matching.isEmpty,
           let seat = peer.session.seat, inFlight[seat] == nil, snappedAtTurn[index] != peer.session.seenTurns {
            snappedAtTurn[index] = peer.session.seenTurns
            snap(index)
        }
    }
}
