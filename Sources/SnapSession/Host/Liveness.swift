import SnapEngine
import SnapProtocol

/// Liveness: whether each connection is still there and how far away it is, and how long a
/// seat whose connection dropped waits for its player.
///
/// Only what a client cannot fake counts as a sign of life: the echo of a ping's nonce
/// (drawn from a generator kept apart from the game's) or its sign-in. Every `pingInterval`
/// each connection is pinged; one that has not signed in within `signInTimeout`, or has
/// not answered for `silenceLimit`, is to be cut. The slowest of the last 8 round trips is
/// what the judge allows a connection. It decides nothing about seats or the game: the
/// session cuts, and hands a seat's cards out when its grace period ends.
struct Liveness: Sendable {
    /// One connection's signs of life.
    struct Pulse: Sendable {
        /// The host's own in-process player: never pinged, no round trip.
        var local: Bool
        /// When a pong last echoed one of our nonces (or the sign-in, or the connection).
        var lastHeard: Duration
        var pingSentAt: [UInt64: Duration] = [:]
        var roundTrips: [Duration] = []
    }

    /// What the ping timer found for one connection.
    enum Check: Equatable, Sendable {
        case ping(ConnectionID)
        /// Cut it: no hello in time, or no answer to pings.
        case cut(ConnectionID, String)
    }

    private(set) var pulses: [ConnectionID: Pulse] = [:]
    /// Seeds the nonces: unpredictable unless a test fixes it.
    private var nonces: SeededRandom
    /// When the next ping round is due (nil: no connection yet, or the game is over).
    private(set) var nextPing: Duration?
    /// When each dropped seat's grace period ends.
    private(set) var graceEnds: [Seat: Duration] = [:]
    let pingInterval: Duration
    let silenceLimit: Duration
    let signInTimeout: Duration
    /// How long a dropped seat waits for its player; zero hands its cards out at once.
    let grace: Duration

    init(_ configuration: HostConfiguration) {
        nonces = SeededRandom(seed: configuration.nonceSeed)
        pingInterval = configuration.pingInterval
        silenceLimit = configuration.silenceLimit
        signInTimeout = configuration.signInTimeout
        grace = configuration.grace
    }

    // MARK: - Connections

    /// A new connection: heard from now; the ping rounds start with the first one.
    mutating func connected(_ id: ConnectionID, local: Bool, now: Duration) {
        pulses[id] = Pulse(local: local, lastHeard: now)
        if nextPing == nil { nextPing = now + pingInterval }
    }

    func knows(_ id: ConnectionID) -> Bool { pulses[id] != nil }

    mutating func forget(_ id: ConnectionID) { pulses[id] = nil }

    /// It signed in (a sign of life): a remote one is pinged at once, since judging needs
    /// its round trip before the first card.
    mutating func signedIn(_ id: ConnectionID, now: Duration) -> HostAction? {
        pulses[id]!.lastHeard = now
        return pulses[id]!.local ? nil : ping(id, now: now)
    }

    /// Only the echo of a nonce we sent is a sign of life: a client that does not read
    /// cannot know one.
    mutating func pong(_ nonce: UInt64, from id: ConnectionID, now: Duration) {
        guard let sent = pulses[id]!.pingSentAt.removeValue(forKey: nonce) else { return }
        pulses[id]!.lastHeard = now
        pulses[id]!.roundTrips.append(now - sent)
        if pulses[id]!.roundTrips.count > 8 { pulses[id]!.roundTrips.removeFirst() }
    }

    /// The slowest recent round trip of a connection: zero for the host's own player and for
    /// none; 5 ms for one with no samples yet.
    func roundTrip(of id: ConnectionID?) -> Duration {
        guard let id, let pulse = pulses[id] else { return .zero }
        return pulse.local ? .zero : (pulse.roundTrips.max() ?? .milliseconds(5))
    }

    // MARK: - Pings

    mutating func ping(_ id: ConnectionID, now: Duration) -> HostAction {
        let nonce = nonces.next()
        pulses[id]!.pingSentAt[nonce] = now
        if pulses[id]!.pingSentAt.count > 16 { pulses[id]!.pingSentAt.remove(at: pulses[id]!.pingSentAt.startIndex) }
        return .send(id, .ping(nonce: nonce))
    }

    /// The ping timer fired: every remote connection in order, pinged or to be cut.
    func checks(now: Duration, isSignedIn: (ConnectionID) -> Bool) -> [Check] {
        var checks: [Check] = []
        for id in pulses.keys.sorted() {
            let pulse = pulses[id]!
            guard !pulse.local else { continue }
            if !isSignedIn(id) {
                if now - pulse.lastHeard >= signInTimeout { checks.append(.cut(id, Self.noHelloText(signInTimeout))) }
                continue
            }
            if now - pulse.lastHeard >= silenceLimit {
                checks.append(.cut(id, Self.silenceText(silenceLimit)))
                continue
            }
            checks.append(.ping(id))
        }
        return checks
    }

    /// The words of the two cuts (docs/PROTOCOL.md quotes them).
    static func noHelloText(_ limit: Duration) -> String { "no hello within \(limit.secondsText)" }
    static func silenceText(_ limit: Duration) -> String { "no answer to pings for \(limit.secondsText)" }

    /// The next round of pings, while anyone is connected.
    mutating func schedulePings(now: Duration) {
        if !pulses.isEmpty { nextPing = now + pingInterval }
    }

    mutating func pingTimerFired() { nextPing = nil }

    // MARK: - Grace periods

    mutating func startGrace(for seat: Seat, now: Duration) { graceEnds[seat] = now + grace }

    mutating func endGrace(for seat: Seat) { graceEnds[seat] = nil }

    /// "away (grace 30 s)"
    var awayText: String {
        "away (grace \(grace.secondsText))"
    }

    // MARK: - Timers

    /// The game is over: no more pings, no more grace periods, nobody connected.
    mutating func stop() {
        pulses = [:]
        nextPing = nil
        graceEnds = [:]
    }

    var nextDeadline: Duration? {
        var next = nextPing
        for end in graceEnds.values where next == nil || end < next! { next = end }
        return next
    }

    func due(at now: Duration, into due: inout [HostTimer]) {
        if let nextPing, nextPing <= now { due.append(.ping) }
        for (seat, end) in graceEnds where end <= now { due.append(.grace(seat)) }
    }
}
