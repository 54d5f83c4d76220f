import SnapBots
import SnapEngine
import SnapProtocol

/// The host's whole job as a value. Feed it inputs with the current time; perform the
/// actions it returns; call `.tick` again at `nextDeadline`. The driver owns the sockets and
/// the clock (`HostServer` on NIO, the tests' virtual network, `Simulation`).
///
/// It is composed of four parts, each a state machine of its own with its own tests
/// (docs/ARCHITECTURE.md, "The host session"):
/// - `Seating`: connections, hellos, the lobby, seat tokens, join codes, watchers;
/// - `GameTable`: the `Game`, its pacing, the turn timer, the computers that play seats;
/// - `SnapJudge`: fair judging of Snap! calls;
/// - `Liveness`: pings, silence, the grace period of dropped seats.
///
/// The session routes each input to the parts, does what their answers ask of the others,
/// and keeps the match log, the one truth: every accepted command with its events.
public struct HostSession: Sendable {
    public enum Phase: Hashable, Sendable { case lobby, playing, over }

    /// The words of three cuts (docs/PROTOCOL.md quotes them): a client reading too slowly
    /// (`why`: by how much), a watcher that plays, an old connection a rejoin replaces.
    static func tooSlowText(_ why: String) -> String { "too slow: \(why)" }
    static let watcherCannotPlayText = "a watcher cannot play: it only watches"
    static let replacedText = "replaced by a new connection"

    public private(set) var configuration: HostConfiguration
    public internal(set) var phase: Phase = .lobby
    /// The match log: every accepted command with the events it caused, in order. The
    /// game is a fold of it (`MatchReplay`); the journal is a copy of it on disk.
    public internal(set) var log: [MatchRecord] = []

    var seating: Seating
    var table: GameTable
    var judge: SnapJudge
    var liveness: Liveness
    /// The time of the input being handled (for log entries made without one at hand).
    var lastNow: Duration = .zero

    public init(_ configuration: HostConfiguration) {
        self.configuration = configuration
        seating = Seating(configuration)
        table = GameTable(configuration)
        judge = SnapJudge(matchSeed: configuration.seed, windowCap: configuration.judgingWindowCap)
        liveness = Liveness(configuration)
    }

    /// A host that crashed, restarted from its match log: the same game, every seat
    /// waiting for its owner within the grace period (the host's computers play on).
    /// `configuration` gives the timings and limits; the log gives the match itself.
    public init(resuming log: [MatchRecord], _ configuration: HostConfiguration, now: Duration) throws(ReplayMismatch) {
        let replay = try MatchReplay.fold(log)
        guard let start = replay.start, replay.game != nil else {
            throw ReplayMismatch(sequence: 0, "the match never started: nothing to resume")
        }
        guard replay.ended == nil else { throw ReplayMismatch(sequence: UInt64(log.count - 1), "the match is over") }
        var configuration = configuration
        configuration.hostName = start.hostName
        configuration.seed = start.seed
        configuration.rules = start.rules
        configuration.rounds = start.rounds
        configuration.botLevel = BotLevel.allCases[min(Int(start.botLevel), BotLevel.allCases.count - 1)]
        self.init(configuration)
        self.log = log
        phase = .playing
        lastNow = now
        seating = Seating(resuming: start, configuration)
        table.resume(replay, owned: start.players.map { start.tokens[$0.seat] != nil })
    }

    /// After `init(resuming:)`: every owner's seat is away with its grace period, and the
    /// timers pick the match up where the log left it. Returns what to do (log lines,
    /// the `absent` events for the journal).
    public mutating func resume(now: Duration) -> [HostAction] {
        var out: [HostAction] = []
        guard let game else { return out }
        for player in seating.players where player.token != nil {
            guard let seat = player.seat, game.hand(seat).isPresent else { continue }
            if liveness.grace > .zero {
                liveness.startGrace(for: seat, now: now)
                out.append(.announce("seat \(seat.rawValue): \(player.name) \(liveness.awayText)"))
                if !game.hand(seat).isAbsent { apply(.absent(seat), now: now, &out) }
            } else {
                leaveSeat(seat, reason: .dropped, now: now, &out)
            }
        }
        guard phase == .playing, let game = self.game else { return out }
        switch table.resumePacing(now: now) {
        case .lobby: deal(now: now, &out)
        case .playing: judge.resume(turnsThisRound: game.turnsThisRound, at: now)
        case .roundOver: revealDeal(now: now, &out)  // the host crashed between a round's win and its reveal
        case .dealing, nil: break
        }
        table.computersObserve([], now: now)
        return out
    }

    // MARK: - What the driver and the windows read

    public var game: Game? { table.game }
    public var roundsWon: Int { table.roundsWon }
    /// Commands applied, and the first broken invariant if any (checked after every one).
    public var commandsApplied: Int { table.commandsApplied }
    public var invariantViolation: String? { table.invariantViolation }

    /// When `.tick` should come next: the soonest of every part's timers.
    public var nextDeadline: Duration? {
        var next = table.nextDeadline
        // Two at a time, not an array of them: the driver asks after every input.
        if let time = judge.deadline, next == nil || time < next! { next = time }
        if let time = liveness.nextDeadline, next == nil || time < next! { next = time }
        return next
    }

    public var lobby: [LobbyPlayer] { seating.lobby }
    public var clientCount: Int { seating.clientCount }
    /// What the Join list shows of this game (and the LAN announcement says).
    public var publicInfo: HostInfo { seating.publicInfo(phase: phase) }
    /// The current round's seed and salt, from its commitment until its reveal.
    var dealSecret: DealReveal? { table.dealSecret }
    /// Wrong join codes per TCP address.
    var wrongCodes: [String: JoinCodeGuard.WrongCodes] { seating.joinCodes.wrongCodes }

    /// Earlier matches' wins, read from the journals by the driver (no I/O here).
    /// The rounds each name won in the host's earlier matches, once counted. Counted after
    /// the game started (a host that opens and starts at once), they go to everyone at the
    /// table again, in a second `wonCounts` (PROTOCOL.md): never a count left at 0.
    public mutating func setEarlierWins(_ wins: [String: Int]) -> [HostAction] {
        let before = seating.wonCounts
        configuration.earlierWins = wins
        seating.earlierWins = wins
        let counts = seating.wonCounts
        guard phase == .playing, counts != before else { return [] }
        let told = seating.players.compactMap(\.connection) + seating.watchers.sorted()
        return told.map { .send($0, .wonCounts(counts)) }
    }

    // MARK: - Inputs

    public mutating func handle(_ input: HostInput, now: Duration) -> [HostAction] {
        var out: [HostAction] = []
        lastNow = now
        switch input {
        case .connected(let id, let local, let remote):
            let refusal = seating.connect(id, local: local, remote: remote)
            liveness.connected(id, local: local, now: now)
            if let (reason, why) = refusal { cut(id, reason, why, now: now, &out) }
        case .message(let id, let message):
            guard seating.connections[id] != nil else { break }
            receive(message, from: id, now: now, &out)
        case .malformed(let id, let reason):
            cut(id, .protocolViolation, reason, now: now, &out)
        case .disconnected(let id):
            drop(id, reason: .dropped, now: now, &out)
        case .tooSlow(let id, let why):
            cut(id, .timedOut, Self.tooSlowText(why), now: now, &out)
        case .start:
            start(now: now, &out)
        case .nextRound:
            if phase == .playing, case .roundOver = game?.phase { deal(now: now, &out) }
        case .quit:
            endGame(.hostQuit, "the host ended the game", &out)
        case .tick:
            fireTimers(now: now, &out)
        }
        return out
    }

    /// A message from a known connection, within its budget, to the part it concerns.
    private mutating func receive(_ message: ClientMessage, from id: ConnectionID, now: Duration, _ out: inout [HostAction]) {
        guard seating.withinBudget(message, from: id, now: now) else {
            return cut(id, .protocolViolation, MessageBudget.overBudgetText(message.budgetKind), now: now, &out)
        }
        let connection = seating.connections[id]!
        if connection.watcher {
            switch message {
            case .ready, .turn, .snap:
                return cut(id, .protocolViolation, Self.watcherCannotPlayText, now: now, &out)
            case .leave:
                drop(id, reason: .quit, now: now, &out)
                return out.append(.hangUp(id))
            case .hello, .query:
                return cut(id, .protocolViolation, "\(message.budgetKind.rawValue) after hello", now: now, &out)
            case .pong:
                break  // below, as anyone's
            }
        }
        switch message {
        case .hello(let hello):
            guard !connection.signedIn else { return cut(id, .protocolViolation, "hello sent twice", now: now, &out) }
            perform(seating.signIn(hello, from: id, phase: phase, game: game, now: now), now: now, &out)
        case .query:
            guard !connection.signedIn else { return cut(id, .protocolViolation, "query after hello", now: now, &out) }
            out.append(.send(id, .info(seating.info(for: id, phase: phase))))
            seating.forget(id)
            liveness.forget(id)
            out.append(.hangUp(id))
        case .pong(let nonce):
            guard connection.signedIn else { return cut(id, .protocolViolation, "pong before hello", now: now, &out) }
            liveness.pong(nonce, from: id, now: now)
        case .ready:
            perform(seating.ready(from: id, phase: phase), now: now, &out)
        case .turn:
            guard let seat = seating.seat(of: id, phase: phase) else {
                return cut(id, .protocolViolation, "turn outside a game", now: now, &out)
            }
            ownerActs(at: seat, now: now, &out)
            let wasActive = table.awaitsTurn(from: seat)
            judgeNow(now: now, &out)
            apply(.turn(seat), now: now, &out)
            if wasActive { table.ownerTurned(at: seat) }
        case .snap(let call):
            guard let seat = seating.seat(of: id, phase: phase) else {
                return cut(id, .protocolViolation, "snap outside a game", now: now, &out)
            }
            ownerActs(at: seat, now: now, &out)
            collect(call, seat: seat, roundTrip: liveness.roundTrip(of: id), now: now, &out)
        case .leave:
            guard connection.playerID != nil else { return cut(id, .protocolViolation, "leave before hello", now: now, &out) }
            drop(id, reason: .quit, now: now, &out)
            out.append(.hangUp(id))  // the leaver knows why: nothing more to say
        }
    }

    /// Does what the seating asks, in order.
    private mutating func perform(_ steps: [Seating.Step], now: Duration, _ out: inout [HostAction]) {
        for step in steps {
            switch step {
            case .act(let action):
                out.append(action)
            case .cut(let id, let reason, let why):
                cut(id, reason, why, now: now, &out)
            case .replace(let old):
                out.append(.close(old, .timedOut, Self.replacedText))
                liveness.forget(old)
            case .signedIn(let id):
                if let ping = liveness.signedIn(id, now: now) { out.append(ping) }
            case .catchUp(let id):
                if let game { out.append(.send(id, .snapshot(snapshot(of: game)))) }
                if let secret = table.dealSecret { out.append(.send(id, .dealCommitted(secret.commitment))) }
            case .returned(let seat):
                liveness.endGrace(for: seat)
                out.append(.announce("seat \(seat.rawValue): \(seating.name(at: seat)) back"))
                apply(.returned(seat), now: now, &out)
            }
        }
    }

    /// The table as a (re)joining player or a watcher first sees it.
    private func snapshot(of game: Game) -> TableSnapshot {
        // Seats a computer plays for an owner who is still connected (away, not gone).
        let away = table.seats.filter { $0.computer != nil && seating.player(at: $0.seat)?.connection != nil }.map(\.seat)
        return TableSnapshot(table: game.table, turnsThisRound: UInt32(clamping: game.turnsThisRound), computerPlays: away)
    }
}
