import SnapEngine
import SnapProtocol

/// What one seat knows, mirrored from the host's messages: the lobby, then the table.
/// It never holds a face-down card. It also keeps the time the current card showed,
/// so a Snap! can carry this player's own reaction time (see docs/PROTOCOL.md).
public struct ClientSession: Sendable {
    public enum Phase: Hashable, Sendable {
        case connecting
        case lobby
        case playing
        /// The host closed the connection, or it dropped (`reason` nil).
        case ended(reason: CloseReason?, message: String)
    }

    public private(set) var phase: Phase = .connecting
    public private(set) var welcome: Welcome?
    public private(set) var lobby: [LobbyPlayer] = []
    public private(set) var seat: Seat?
    public private(set) var names: [Seat: String] = [:]
    public private(set) var table: TableView?
    /// `turned` events seen this round, and when the newest reference (that card, or dealFinished) arrived.
    public private(set) var seenTurns: UInt32 = 0
    public private(set) var referenceShownAt: Duration?
    public private(set) var lastLeaver: (seat: Seat, reason: LeaveReason)?
    /// Seats a computer plays for an owner who missed turns ("Ann (away)").
    public private(set) var away: Set<Seat> = []
    /// How long a player may take to turn (from `gameStarted`), and when the current
    /// active seat was activated: together, the turn timer's countdown.
    public private(set) var turnTimeout: Duration?
    public private(set) var activatedAt: Duration?
    /// How long an away seat waits for its player, and since when each one is away.
    public private(set) var grace: Duration = .zero
    public private(set) var awaySince: [Seat: Duration] = [:]
    /// How many are watching the table.
    public private(set) var watchers = 0
    /// Every round's verdict on the host's deal, in order (the newest last): each reveal
    /// checked against its commitment and against the cards this client saw.
    public private(set) var dealVerdicts: [DealVerdict] = []
    /// Rounds each seat's player won in the host's earlier matches (`wonCounts`); the
    /// table shows them added to this match's wins.
    public private(set) var earlierWins: [Seat: Int] = [:]
    /// The round being witnessed: from the host's commitment until its reveal.
    var witness: DealWitness?
    /// True for a watcher: a seat-less view of the table.
    public var isWatching: Bool { phase == .playing && seat == nil }

    public init() {}

    public static func hello(name: String, joinCode: String = "") -> ClientMessage {
        .hello(Hello(name: name, joinCode: joinCode))
    }

    /// Applies one message from the host. Returns the events it carried (empty for
    /// other messages). It answers nothing: a ping is the `SeatLink`'s to answer.
    @discardableResult
    public mutating func receive(_ message: HostMessage, now: Duration) -> [SeatEvent] {
        switch message {
        case .welcome(let welcome):
            self.welcome = welcome
            phase = .lobby
        case .lobby(let players):
            lobby = players
        case .gameStarted(let start):
            seat = start.yourSeat
            names = Dictionary(uniqueKeysWithValues: start.players.map { ($0.seat, $0.name) })
            table = TableView(seats: start.players.map(\.seat))
            turnTimeout = start.turnTimeoutMillis.map { .milliseconds(Int64($0)) }
            grace = start.grace
            away = []
            awaySince = [:]
            phase = .playing
        case .snapshot(let snapshot):
            // Catching up after a rejoin (or watching from mid-game): the table as it stands.
            table = snapshot.table
            // The round's start was missed: only its commitment can be checked.
            witness?.complete = false
            seenTurns = snapshot.turnsThisRound
            referenceShownAt = now
            activatedAt = snapshot.table.active == nil ? nil : now
            away = Set(snapshot.computerPlays)
            awaySince = Dictionary(uniqueKeysWithValues: snapshot.table.seats.filter { snapshot.table[$0].isAbsent }.map { ($0, now) })
        case .watching(let count):
            watchers = Int(count)
        case .events(let events):
            witness?.record(events)
            for event in events {
                table?.apply(event)
                switch event {
                case .roundStarted: seenTurns = 0; referenceShownAt = nil; activatedAt = nil
                case .dealFinished: referenceShownAt = now
                case .activated: activatedAt = now
                case .absent(let seat): awaySince[seat] = now
                case .returned(let seat), .playerLeft(let seat): awaySince[seat] = nil
                case .turned: seenTurns += 1; referenceShownAt = now; activatedAt = nil
                default: break
                }
            }
            return events
        case .ping:
            break
        case .seatLeft(let seat, let reason):
            lastLeaver = (seat, reason)
            away.remove(seat)
        case .seatAway(let seat, let isAway):
            if isAway { away.insert(seat) } else { away.remove(seat) }
            // The host starts a fresh timer for an owner who is back on their own turn.
            if !isAway, table?.active == seat, table?.hasTurned == false { activatedAt = now }
        case .closing(let reason, let message):
            phase = .ended(reason: reason, message: message)
        case .info:
            break
        case .dealCommitted(let commitment):
            if let unrevealed = witness, unrevealed.commitment.round != commitment.round {
                dealVerdicts.append(.mismatch(round: unrevealed.commitment.round, reason: "the deal was never revealed"))
            }
            let players = table.map { table in table.seats.filter { table[$0].isPresent } } ?? []
            witness = DealWitness(commitment: commitment, players: players)
        case .wonCounts(let counts):
            earlierWins = Dictionary(counts.map { ($0.seat, Int($0.won)) }, uniquingKeysWith: { $1 })
        case .dealRevealed(let reveal):
            guard let witness else {
                dealVerdicts.append(.mismatch(round: reveal.round, reason: "the host revealed a deal it never committed to"))
                break
            }
            dealVerdicts.append(witness.verdict(reveal))
            self.witness = nil
        }
        return []
    }

    /// The connection ended without a word from the host.
    public mutating func connectionLost(_ message: String) {
        if case .ended = phase { return }
        phase = .ended(reason: nil, message: message)
    }

    /// The window says when round `round`'s reference `turn` (the `turn`-th card turned
    /// that round, as counted by `seenTurns`; 0 for the finished deal) first became visible
    /// on this player's screen: from then on a Snap! measures its reaction from `time`
    /// instead of from when the message arrived. A report for any other reference than the
    /// current one (an older card, or the same count in an earlier round) is ignored.
    public mutating func referenceShown(round: Int, turn: UInt32, at time: Duration) {
        guard round == table?.round, turn == seenTurns, referenceShownAt != nil else { return }
        referenceShownAt = time
    }

    /// A Snap! pressed at `now`, with this player's reaction time.
    public func snap(at now: Duration) -> ClientMessage {
        let reaction = referenceShownAt.map { now - $0 } ?? .zero
        return .snap(SnapCall(seenTurns: seenTurns, reactionMicros: UInt32(clamping: max(0, reaction.microseconds))))
    }

    public var name: String? { seat.flatMap { names[$0] } }

    /// Whole seconds an away seat still waits for its player ("Ann is reconnecting… 24 s").
    public func reconnectCountdown(_ seat: Seat, now: Duration) -> Int? {
        guard let since = awaySince[seat] else { return nil }
        let left = grace - (now - since)
        guard left > .zero else { return 0 }
        return Int((left / .seconds(1)).rounded(.up))
    }

    /// A seat's name as the table shows it: "Ann (away)" while a computer plays for Ann.
    public func displayName(_ seat: Seat) -> String {
        let name = names[seat] ?? "\(seat)"
        return away.contains(seat) ? Self.awayName(name) : name
    }

    /// "Ann (away)": the name of a seat a computer plays for its owner.
    static func awayName(_ name: String) -> String { name + " (away)" }

    /// How long before the host turns for the active player the window counts down.
    public static let turnCountdownWindow: Duration = .seconds(5)

    /// Whole seconds left before the host turns for the active player, once at most
    /// `within` remain (the window's countdown); nil otherwise.
    public func turnCountdown(now: Duration, within: Duration = ClientSession.turnCountdownWindow) -> Int? {
        guard let turnTimeout, let activatedAt, let table, table.active != nil, !table.hasTurned,
              let active = table.active, !away.contains(active) else { return nil }
        let left = turnTimeout - (now - activatedAt)
        guard left <= within, left > .zero else { return nil }
        return Int((left / .seconds(1)).rounded(.up))
    }
}

/// One message from the host as a window animates it: the events it carried and the
/// table just before it (the model animates from there; the session already holds after).
public struct ReceivedMessage: Sendable {
    public var message: HostMessage
    public var events: [SeatEvent]
    public var tableBefore: TableView?

    public init(_ message: HostMessage, events: [SeatEvent], tableBefore: TableView?) {
        self.message = message
        self.events = events
        self.tableBefore = tableBefore
    }
}

extension ClientSession {
    /// `receive`, remembering the table before the message (what a window's model needs).
    public mutating func receiveForWindow(_ message: HostMessage, now: Duration) -> ReceivedMessage {
        let before = table
        let events = receive(message, now: now)
        return ReceivedMessage(message, events: events, tableBefore: before)
    }
}
